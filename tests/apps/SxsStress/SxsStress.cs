// Stresses one runtime's signal paths for a while, with other runtimes in the same process.
//
// Usage: SxsStress <seconds> [bridge-peer-index]
//
// For <seconds>, concurrently:
//   - a collector thread allocates and forces full GCs (GC.Collect) in a loop;
//   - a spinner thread sits in a tight loop over a volatile field, with no calls, until the
//     collector's next GC has finished: every GC must suspend it through the activation signal;
//   - a thrower thread throws and catches software exceptions;
//   - a divider thread divides integers by zero (a hardware fault, SIGFPE) and catches them;
//   - the main thread and two thread-pool work items read a field through a null reference
//     (a hardware fault, SIGSEGV) and catch the NullReferenceException;
//   - with a peer index, two threads call the peer runtime's SxsStress.Echo through the
//     sxsbridge library, so calls go managed -> native -> managed of another runtime.
// Then it prints one line with exact counts and returns 0:
//   stress ok seconds=S gcs=N exceptions=N nre=N nre_pool=N div0=N spins=N bridge=N
// A wrong bridge result or an unexpected exception prints "stress FAILED ..." and returns 1.
// When the runtime shuts down (also on SIGTERM) its ProcessExit handler prints
// "stress process-exit clr=<Environment.Version>".
using System;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace Sxs.Tests
{
    public static class SxsStress
    {
#pragma warning disable 0649 // the fields below are never assigned: that is the point
        private sealed class Holder
        {
            public int Value;
        }

        private static volatile int s_stop;
        private static volatile int s_round;      // bumped by the collector after every GC
        private static Holder s_null;             // never assigned: every read faults
        private static int s_zero;                // never assigned: every division faults
#pragma warning restore 0649
        private static object[] s_keep = new object[4096];

        private static long s_gcs;
        private static long s_exceptions;
        private static long s_nre;
        private static long s_nrePool;
        private static long s_div0;
        private static long s_spins;
        private static long s_bridge;
        private static string s_failure;

        [DllImport("sxsbridge", CallingConvention = CallingConvention.Cdecl)]
        private static extern int sxs_bridge_call(int runtime_index,
            [MarshalAs(UnmanagedType.LPStr)] string assembly_path,
            [MarshalAs(UnmanagedType.LPStr)] string type_name,
            [MarshalAs(UnmanagedType.LPStr)] string method_name,
            int arg);

        [DllImport("sxsbridge", CallingConvention = CallingConvention.Cdecl)]
        private static extern int sxs_bridge_wait(int runtime_index, int timeout_ms);

        // The target of the peer runtime's bridge calls.
        public static int Echo(int value)
        {
            return value;
        }

        public static int Main(string[] args)
        {
            if (args.Length < 1 || args.Length > 2)
            {
                Console.Error.WriteLine("usage: SxsStress <seconds> [bridge-peer-index]");
                return 2;
            }
            double seconds = double.Parse(args[0], CultureInfo.InvariantCulture);
            int peer = args.Length == 2 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 0;

            // Shows whether this runtime's shutdown ran when the process was told to terminate.
            AppDomain.CurrentDomain.ProcessExit += (sender, e) =>
            {
                Console.WriteLine("stress process-exit clr=" + Environment.Version.ToString());
                Console.Out.Flush();
            };

            var threads = new System.Collections.Generic.List<Thread>();
            threads.Add(Start(Collect, "collector"));
            threads.Add(Start(Spin, "spinner"));
            threads.Add(Start(ThrowLoop, "thrower"));
            threads.Add(Start(DivideLoop, "divider"));
            if (peer > 0)
            {
                int waited = sxs_bridge_wait(peer, 60000);
                if (waited != 0)
                {
                    Fail("peer runtime " + peer.ToString(CultureInfo.InvariantCulture) +
                         " not available: " + waited.ToString(CultureInfo.InvariantCulture));
                }
                else
                {
                    for (int i = 0; i < 2; i++)
                    {
                        int p = peer;
                        threads.Add(Start(() => BridgeLoop(p), "bridge"));
                    }
                }
            }

            var poolDone = new CountdownEvent(2);
            for (int i = 0; i < 2; i++)
            {
                ThreadPool.QueueUserWorkItem(_ =>
                {
                    try
                    {
                        NullLoop(ref s_nrePool);
                    }
                    finally
                    {
                        poolDone.Signal();
                    }
                });
            }

            int deadline = Environment.TickCount + (int)(seconds * 1000);
            while (s_stop == 0 && Environment.TickCount - deadline < 0)
            {
                for (int i = 0; i < 16; i++)
                    NullOnce(ref s_nre);
                Thread.Sleep(1);
            }
            s_stop = 1;
            foreach (Thread t in threads)
                t.Join();
            poolDone.Wait();

            if (s_failure != null)
            {
                Console.WriteLine("stress FAILED " + s_failure);
                return 1;
            }
            Console.WriteLine(string.Format(CultureInfo.InvariantCulture,
                "stress ok seconds={0} gcs={1} exceptions={2} nre={3} nre_pool={4} div0={5} spins={6} bridge={7} clr={8}",
                args[0], s_gcs, s_exceptions, s_nre, s_nrePool, s_div0, s_spins, s_bridge, Environment.Version));
            Console.Out.Flush();
            return 0;
        }

        private static Thread Start(ThreadStart body, string name)
        {
            var t = new Thread(() =>
            {
                try
                {
                    body();
                }
                catch (Exception e)
                {
                    Fail(name + ": " + e.GetType().FullName + ": " + e.Message);
                }
            });
            t.Name = name;
            t.IsBackground = true;
            t.Start();
            return t;
        }

        private static void Fail(string message)
        {
            Interlocked.CompareExchange(ref s_failure, message, null);
            s_stop = 1;
        }

        // Allocates garbage with some survivors and forces a full GC, then lets the spinner go on.
        private static void Collect()
        {
            int slot = 0;
            while (s_stop == 0)
            {
                for (int i = 0; i < 256; i++)
                {
                    s_keep[slot] = new byte[64 + (i & 63) * 16];
                    slot = (slot + 1) & (s_keep.Length - 1);
                    new object().GetHashCode();
                }
                GC.Collect();
                s_gcs++;
                s_round++;
            }
            s_round++;
        }

        // Waits for the next GC in a loop that makes no calls: the GC can only stop this thread by
        // interrupting it with the activation signal.
        private static void Spin()
        {
            while (s_stop == 0)
            {
                int seen = s_round;
                while (s_round == seen && s_stop == 0)
                {
                }
                s_spins++;
            }
        }

        private static void ThrowLoop()
        {
            while (s_stop == 0)
            {
                try
                {
                    Throw();
                }
                catch (InvalidOperationException)
                {
                    s_exceptions++;
                }
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Throw()
        {
            throw new InvalidOperationException("stress");
        }

        private static void DivideLoop()
        {
            int sink = 0;
            while (s_stop == 0)
            {
                try
                {
                    sink += Divide(1000, s_zero);
                }
                catch (DivideByZeroException)
                {
                    s_div0++;
                }
            }
            GC.KeepAlive(sink);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static int Divide(int a, int b)
        {
            return a / b;
        }

        private static void NullLoop(ref long counter)
        {
            while (s_stop == 0)
                NullOnce(ref counter);
        }

        private static void NullOnce(ref long counter)
        {
            try
            {
                ReadValue(s_null);
            }
            catch (NullReferenceException)
            {
                Interlocked.Increment(ref counter);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static int ReadValue(Holder h)
        {
            return h.Value;
        }

        private static void BridgeLoop(int peer)
        {
            string path = typeof(SxsStress).Assembly.Location;
            int i = 0;
            while (s_stop == 0)
            {
                i++;
                int r = sxs_bridge_call(peer, path, "Sxs.Tests.SxsStress", "Echo", i);
                if (r != i)
                {
                    Fail("bridge call to runtime " + peer.ToString(CultureInfo.InvariantCulture) +
                         " returned " + r.ToString(CultureInfo.InvariantCulture) + " for " +
                         i.ToString(CultureInfo.InvariantCulture));
                    return;
                }
                Interlocked.Increment(ref s_bridge);
                if ((i & 63) == 0)
                    Thread.Sleep(1);
            }
        }
    }
}
