// A minimal-API service whose endpoints do known work by construction, for the endpoint labels'
// tests: GET /light/{id} spins and allocates one unit in each of three bursts, GET /heavy/{id} nine
// units, with awaits between the bursts that move the request to other threads of the pool
// (Task.Yield, Task.Delay); GET /lock/{id} holds a lock that concurrent requests wait for;
// GET /warm/{id} runs the light work (a warm-up of its own); GET /ping answers at once;
// GET /sync-light/{id} and /sync-heavy/{id} do one and nine units without an await, each request
// on the thread it began on (GET /sync-warm/{id}: their warm-up); GET /users/{name}/orders/{orderId:int}
// does one unit without an await under a route template whose name segment no path shows as a value.
using System;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Sxs.Tests.Endpoints
{
    public static class Work
    {
        // Iterations of one unit of CPU work (about a millisecond here).
        public const int Unit = 400000;
        // Bytes one unit allocates.
        public const int UnitBytes = 64 * 1024;

        public static volatile int Sink;
        private static readonly object Gate = new object();

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Spin(int units)
        {
            uint x = 2463534242u;
            int n = units * Unit;
            for (int i = 0; i < n; i++)
            {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
            }
            Sink = (int)x;
            return (int)x;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Allocate(int units)
        {
            int kept = 0;
            for (int i = 0; i < units * 8; i++)
            {
                byte[] block = new byte[UnitBytes / 8];
                block[i % block.Length] = 1;
                kept += block.Length;
            }
            return kept;
        }

        // Three bursts of `units` each, the request moved to the pool between them.
        public static async Task<string> Bursts(int units)
        {
            int sum = Spin(units) + Allocate(units);
            await Task.Yield();
            sum += Spin(units) + Allocate(units);
            await Task.Delay(1);
            sum += Spin(units) + Allocate(units);
            return (sum & 1).ToString();
        }

        // `units` of work without an await.
        public static string Now(int units)
        {
            int sum = Spin(units) + Allocate(units);
            return (sum & 1).ToString();
        }

        public static async Task<string> Locked()
        {
            await Task.Yield();
            lock (Gate)
            {
                Thread.Sleep(5);
            }
            return "locked";
        }
    }

    public static class Program
    {
        public static void Main(string[] args)
        {
            WebApplicationBuilder builder = WebApplication.CreateBuilder(args);
            builder.Logging.SetMinimumLevel(LogLevel.Warning);
            WebApplication app = builder.Build();
            app.MapGet("/ping", () => "ok");
            app.MapGet("/light/{id}", (int id) => Work.Bursts(1));
            app.MapGet("/heavy/{id}", (int id) => Work.Bursts(9));
            app.MapGet("/warm/{id}", (int id) => Work.Bursts(1));
            app.MapGet("/lock/{id}", (int id) => Work.Locked());
            app.MapGet("/sync-light/{id}", (int id) => Work.Now(1));
            app.MapGet("/sync-heavy/{id}", (int id) => Work.Now(9));
            app.MapGet("/sync-warm/{id}", (int id) => Work.Now(1));
            app.MapGet("/users/{name}/orders/{orderId:int}", (string name, int orderId) => Work.Now(1));
            app.Run();
        }
    }
}
