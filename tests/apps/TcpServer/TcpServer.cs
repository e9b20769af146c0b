// A small TCP server with no signal handling of its own: it listens on 127.0.0.1 (an ephemeral
// port), prints "listening <port>", and answers each line "<n>" of every connection with the
// line "<n> <checksum>", where the checksum takes n rounds of integer arithmetic. Each connection
// is served on a thread of its own. It runs until a signal ends it.
//
// Usage: TcpServer
using System;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;

namespace Sxs.Tests
{
    public static class TcpServer
    {
        public static int Main(string[] args)
        {
            if (args.Length != 0)
            {
                Console.Error.WriteLine("usage: TcpServer");
                return 2;
            }
            var listener = new TcpListener(IPAddress.Loopback, 0);
            listener.Start();
            Console.WriteLine("listening " + ((IPEndPoint)listener.LocalEndpoint).Port);
            Console.Out.Flush();
            for (;;)
            {
                TcpClient client = listener.AcceptTcpClientAsync().Result;
                var thread = new Thread(() => HandleConnection(client));
                thread.IsBackground = true;
                thread.Start();
            }
        }

        // Reads request lines until the client closes the connection, answering each.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void HandleConnection(TcpClient client)
        {
            using (client)
            using (NetworkStream stream = client.GetStream())
            using (var reader = new StreamReader(stream, Encoding.ASCII))
            using (var writer = new StreamWriter(stream, new UTF8Encoding(false)))
            {
                writer.NewLine = "\n";
                string line;
                while ((line = reader.ReadLine()) != null)
                {
                    writer.WriteLine(HandleRequest(line));
                    writer.Flush();
                }
            }
        }

        // One request: "<n>" -> "<n> <checksum>", or "error" for a line that is not a number.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string HandleRequest(string line)
        {
            int n;
            if (!int.TryParse(line, out n) || n < 0)
                return "error";
            return n + " " + Checksum(n);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Checksum(int rounds)
        {
            long x = rounds;
            for (int i = 0; i < rounds; i++)
                x = x * 6364136223846793005L + 1442695040888963407L;
            return x & 0x7fffffff;
        }
    }
}
