// Keeps a CPU busy for a while in two named methods, prints "work done", then lets an
// InvalidOperationException("deliberate") escape Main, so the runtime aborts the process
// (exit status 134, SIGABRT) after a stretch of ordinary managed work.
//
// Usage: Unhandled [milliseconds]      (default 2500)
using System;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Sxs.Tests
{
    public static class Unhandled
    {
        // Where the work's result goes, so the JIT cannot drop the loop as dead code.
        private static long sink;

        public static int Main(string[] args)
        {
            int milliseconds = 2500;
            if (args.Length > 1 ||
                (args.Length == 1 &&
                 !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture,
                               out milliseconds)))
            {
                Console.Error.WriteLine("usage: Unhandled [milliseconds]");
                return 2;
            }
            sink = Work(milliseconds);
            Console.WriteLine("work done");
            Console.Out.Flush();
            throw new InvalidOperationException("deliberate");
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

        // A short, fixed amount of integer arithmetic (a few microseconds), so most samples of
        // a profiled run land in Step with Work and Main below it.
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
