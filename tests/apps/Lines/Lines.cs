// Lines: a CPU-bound loop on a known line, called from a known line, for the source-line tests.
// The tests find the lines by the markers in the comments (LINE:<name>), so moving code keeps
// them right. Built four ways (tests/apps/Lines/variants): PDB embedded (Lines), beside the dll
// (LinesPdb), none (LinesNoPdb), and a portable PDB of different code (LinesOther).
//
// Usage: Lines [milliseconds]     runs Outer -> Hot for that long (default 2000), exit code 0.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Sxs.Lines
{
    public static class Program
    {
        static long sink;

        public static int Main(string[] args)
        {
            int ms = args.Length > 0 ? int.Parse(args[0]) : 2000;
            var clock = Stopwatch.StartNew();
            long total = 0;
            while (clock.ElapsedMilliseconds < ms)
            {
                total += Outer(400);
            }
            sink = total;
#if OTHER
            Console.WriteLine("other");
#endif
            return 0;
        }

        // A caller whose frame's line is the line of the call.
        [MethodImpl(MethodImplOptions.NoInlining)]
        static long Outer(int n)
        {
            long s = 0;
            for (int k = 0; k < 50; k++)
            {
                s += Hot(n + k); // LINE:call
            }
            return s;
        }

        // Short calls, many of them: tier 0 first, tier 1 once the runtime has counted enough
        // calls; fewer iterations per call than on-stack replacement waits for.
        [MethodImpl(MethodImplOptions.NoInlining)]
        static long Hot(int n)
        {
            long acc = n;
            for (int i = 0; i < n; i++)
                acc = (acc * 6364136223846793005L + i) ^ (acc >> 13) ^ (acc << 7) ^ (acc >> 29); // LINE:hot
            return acc;
        }
    }
}
