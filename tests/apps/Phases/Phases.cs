// A run in phases whose times are known, for the timeline tests: about 1 s of Alpha.Spin, 1 s of
// sleep, 1 s of Beta.Spin, then a storm of forced collections, all on the main thread. Each phase's
// start and end are printed as the monotonic clock reads them (Stopwatch.GetTimestamp, which is
// CLOCK_MONOTONIC on Linux, in its own ticks: Stopwatch.Frequency a second), so that a test can
// place them on the profile's timeline (timeline.monotonic_start_us).
//
// Usage: Phases [<ms per phase> [<collections>]]    (default 1000 and 200)
// Prints, one a line:
//   frequency <ticks a second>
//   phase <name> <start ticks> <end ticks>       for alpha, idle, beta, storm
//   gc count=<collections of generation 0 over the run> storm=<collections made by the storm>
//      pause_us=<GC.GetTotalPauseDuration in microseconds, -1 before .NET 7>
using System;
using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Threading;

public static class Phases
{
    public static int Main(string[] args)
    {
        int ms = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 1000;
        int storm = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 200;
        Console.WriteLine("frequency " + Stopwatch.Frequency.ToString(CultureInfo.InvariantCulture));
        long t0 = Stopwatch.GetTimestamp();
        Alpha.Spin(ms);
        long t1 = Stopwatch.GetTimestamp();
        Print("alpha", t0, t1);
        Thread.Sleep(ms);
        long t2 = Stopwatch.GetTimestamp();
        Print("idle", t1, t2);
        Beta.Spin(ms);
        long t3 = Stopwatch.GetTimestamp();
        Print("beta", t2, t3);
        int before = GC.CollectionCount(0);
        Storm.Run(storm);
        long t4 = Stopwatch.GetTimestamp();
        Print("storm", t3, t4);
        int made = GC.CollectionCount(0) - before;
        long pauseUs = -1;
        MethodInfo pause = typeof(GC).GetMethod("GetTotalPauseDuration", BindingFlags.Public | BindingFlags.Static);
        if (pause != null)
            pauseUs = (long)(((TimeSpan)pause.Invoke(null, null)).Ticks / 10);
        Console.WriteLine("gc count=" + GC.CollectionCount(0).ToString(CultureInfo.InvariantCulture) +
                          " storm=" + made.ToString(CultureInfo.InvariantCulture) +
                          " pause_us=" + pauseUs.ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    static void Print(string name, long start, long end)
    {
        Console.WriteLine("phase " + name + " " + start.ToString(CultureInfo.InvariantCulture) + " " +
                          end.ToString(CultureInfo.InvariantCulture));
    }

}

public static class Alpha
{
    static long sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Spin(int ms)
    {
        long end = Stopwatch.GetTimestamp() + Stopwatch.Frequency * ms / 1000;
        long x = sink;
        while (Stopwatch.GetTimestamp() < end)
            for (int i = 0; i < 20000; i++)
                x = x * 6364136223846793005L + 1442695040888963407L;
        sink = x;
    }
}

public static class Beta
{
    static long sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Spin(int ms)
    {
        long end = Stopwatch.GetTimestamp() + Stopwatch.Frequency * ms / 1000;
        long x = sink;
        while (Stopwatch.GetTimestamp() < end)
            for (int i = 0; i < 20000; i++)
                x = x * 3935559000370003845L + 2691343689449507681L;
        sink = x;
    }
}

public static class Storm
{
    static object[] keep = new object[64];

    // Forced full collections with live objects between them.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run(int collections)
    {
        for (int i = 0; i < collections; i++)
        {
            for (int j = 0; j < keep.Length; j++)
                keep[j] = new byte[1024 * (j + 1)];
            GC.Collect();
        }
    }
}
