// Ends in a chosen way after a stretch of CPU-bound work in named methods, with no signal
// handling of its own: what the profiler must survive without changing the ending.
//
// Usage: Endings <how> [milliseconds] [code]
//   loop       compute until killed, or until `milliseconds` (default 60000) have passed: exit 0
//   exit       Environment.Exit(code) from a worker thread after `milliseconds` while Main computes
//   throw      an unhandled InvalidOperationException after `milliseconds` (the runtime aborts)
//   abort      a P/Invoke into libc abort() after `milliseconds`
//   segv       a P/Invoke into libc strlen() of address 8 after `milliseconds`: SIGSEGV in native code
// It prints "started <how>" once the work begins, and "done" when the loop ends by itself.
using System;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace Sxs.Tests
{
    public static class Endings
    {
        // Where the work's result goes, so the JIT cannot drop the loop as dead code.
        private static long sink;

        [DllImport("libc.so.6", EntryPoint = "abort")]
        private static extern void LibcAbort();

        [DllImport("libc.so.6", EntryPoint = "strlen")]
        private static extern IntPtr LibcStrlen(IntPtr s);

        public static int Main(string[] args)
        {
            if (args.Length < 1 || args.Length > 3)
                return Usage();
            string how = args[0];
            int milliseconds = how == "loop" ? 60000 : 3000;
            int code = 0;
            if ((args.Length > 1 && !int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out milliseconds)) ||
                (args.Length > 2 && !int.TryParse(args[2], NumberStyles.None, CultureInfo.InvariantCulture, out code)))
                return Usage();
            Console.WriteLine("started " + how);
            Console.Out.Flush();
            switch (how)
            {
                case "loop":
                    sink = Work(milliseconds);
                    Console.WriteLine("done");
                    return 0;
                case "exit":
                    var exiter = new Thread(() => { Thread.Sleep(milliseconds); Environment.Exit(code); });
                    exiter.Start();
                    sink = Work(int.MaxValue);
                    return 1;
                case "throw":
                    sink = Work(milliseconds);
                    throw new InvalidOperationException("deliberate");
                case "abort":
                    sink = Work(milliseconds);
                    LibcAbort();
                    return 1;
                case "segv":
                    sink = Work(milliseconds);
                    sink += (long)LibcStrlen(new IntPtr(8));
                    return 1;
                default:
                    return Usage();
            }
        }

        private static int Usage()
        {
            Console.Error.WriteLine("usage: Endings loop|exit|throw|abort|segv [milliseconds] [code]");
            return 2;
        }

        // Calls Step until `milliseconds` of wall time have passed; returns the sum of the steps.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Work(int milliseconds)
        {
            var clock = Stopwatch.StartNew();
            long total = 0;
            long seed = 1;
            do
            {
                long value = Step(seed);
                total += value;
                seed = value | 1;
            } while (clock.ElapsedMilliseconds < milliseconds);
            return total;
        }

        // A short, fixed amount of integer arithmetic (a few microseconds), so most samples land
        // in Step with Work and Main below it.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Step(long seed)
        {
            long x = seed;
            for (int i = 0; i < 10000; i++)
                x = x * 6364136223846793005L + 1442695040888963407L;
            return x;
        }
    }
}
