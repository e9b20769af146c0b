// Measures the cost of one call of a trivial non-inlined static method, to compare a run with
// a profiler's call tracing (Enter/Leave hooks) against one without.
//
// Usage: CallBench [calls]        (default 50000000)
// Calls Sxs.Tests.CallBench.Trivial(int) 1000 times to warm up, then `calls` times in a loop
// timed with a Stopwatch (only the loop), and prints
//   calls=N ns_per_call=X.XX elapsed_ms=Y
// Bad arguments return 2.
using System;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Sxs.Tests
{
    public static class CallBench
    {
        private static long s_sink;   // keeps the loop's result alive

        public static int Main(string[] args)
        {
            long calls = 50000000;
            if (args.Length > 1 ||
                (args.Length == 1 &&
                 !long.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out calls)))
            {
                Console.Error.WriteLine("usage: CallBench [calls]");
                return 2;
            }

            s_sink += Run(1000);

            var watch = Stopwatch.StartNew();
            long sum = Run(calls);
            watch.Stop();
            s_sink += sum;

            double ns = watch.Elapsed.TotalMilliseconds * 1e6;
            double perCall = calls > 0 ? ns / calls : 0.0;
            Console.WriteLine("calls=" + calls.ToString(CultureInfo.InvariantCulture) +
                              " ns_per_call=" + perCall.ToString("F2", CultureInfo.InvariantCulture) +
                              " elapsed_ms=" + watch.ElapsedMilliseconds.ToString(CultureInfo.InvariantCulture));
            return s_sink == long.MinValue ? 1 : 0;   // never true; reads the result once more
        }

        // Calls Trivial `calls` times and returns the sum of its results.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Run(long calls)
        {
            long sum = 0;
            for (long i = 0; i < calls; i++)
                sum += Trivial((int)i);
            return sum;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Trivial(int x)
        {
            return x + 1;
        }
    }
}
