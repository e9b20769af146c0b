// CPU work in known places, for the sampling profiler's tests. The types sit in the global
// namespace so that frames read Hot.Spin, Cold.Walk, RuntimeOne.Spin, Callee.Burn. Every method
// that does work is NoInlining and does it itself, in a loop of plain integer arithmetic without
// allocations or calls, looking at the clock (Stopwatch) only once per chunk of iterations, so that
// nearly all samples of a busy thread land in the named method itself.
//
// Usage: SxsSample                           prints "sample ready", returns 0
//        SxsSample hotcold <seconds>
//                    For <seconds> of wall time the main thread alternates Hot.Spin (9 ms of its
//                    CPU time) and Cold.Walk (1 ms of its CPU time), so that 90 % of its CPU time is
//                    spent in Hot.Spin and 10 % in Cold.Walk however often it is preempted (phases
//                    of wall time would not: a Hot.Spin whose deadline passed while the thread
//                    waited for a CPU ends at once, and the Cold.Walk after it gets its whole
//                    millisecond). No threads of its own. Prints
//                    "hotcold seconds=<seconds> hot_ms=<H> cold_ms=<C>", H and C the wall time
//                    measured around each call.
//        SxsSample sleep <seconds>
//                    A thread named "sleeper" runs Sleeper.Nap, which calls Thread.Sleep in a loop
//                    for <seconds> (blocked, off the CPU), while the main thread runs Hot.Spin for
//                    <seconds>. Prints "sleep seconds=<seconds> naps=<N>".
//        SxsSample spin <name> <seconds>
//                    The main thread spins for <seconds> in RuntimeOne.Spin (name One) or
//                    RuntimeTwo.Spin (name Two), so that two runtimes under runsxs each spin in a
//                    function of their own. Prints "spin name=<name> seconds=<seconds>".
//        SxsSample alc <seconds>
//                    For <seconds>, again and again: loads this assembly into a new collectible
//                    AssemblyLoadContext (made through reflection: the app is compiled against
//                    2.0's API, collectible contexts came with 3.0), calls Plugin.Work there (JIT
//                    compiled afresh in that context), unloads the context and collects, so that
//                    modules load and unload all the time. Prints "alc seconds=<seconds> loads=<N>".
//        SxsSample bridge <other> <seconds>
//                    Caller.Call calls, through libsxsbridge, Callee.Burn in runtime <other> (as
//                    runsxs numbers them; that runtime runs this app without arguments) again and
//                    again until <seconds> have passed; each call burns about 50 ms of CPU in
//                    Callee.Burn in runtime <other>. Prints "bridge other=<other> calls=<K>".
// <seconds> may have a fraction (0.5). Returns 0 when every value is as expected, 1 otherwise, and
// 2 (with a usage line on stderr) for bad arguments.
using System;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

public static class SxsSample
{
    private const string UsageText =
        "usage: SxsSample [hotcold <seconds> | sleep <seconds> | spin One|Two <seconds> | " +
        "alc <seconds> | bridge <other> <seconds>]";

    [DllImport("sxsbridge", CallingConvention = CallingConvention.Cdecl)]
    internal static extern int sxs_bridge_call(int runtimeIndex, string assemblyPath, string typeName,
                                               string methodName, int arg);

    [DllImport("sxsbridge", CallingConvention = CallingConvention.Cdecl)]
    private static extern int sxs_bridge_wait(int runtimeIndex, int timeoutMs);

    internal static string AssemblyPath
    {
        get { return typeof(SxsSample).Assembly.Location; }
    }

    public static int Main(string[] args)
    {
        if (args.Length == 0)
        {
            Console.WriteLine("sample ready");
            return 0;
        }
        double seconds;
        switch (args[0])
        {
            case "hotcold":
                {
                    if (args.Length != 2 || !TryParseSeconds(args[1], out seconds))
                        return Usage();
                    long hot, cold;
                    HotCold(seconds, out hot, out cold);
                    Console.WriteLine("hotcold seconds=" + Str(seconds) + " hot_ms=" + Str(Ms(hot)) +
                                      " cold_ms=" + Str(Ms(cold)));
                    return hot > 0 && cold > 0 ? 0 : 1;
                }
            case "sleep":
                {
                    if (args.Length != 2 || !TryParseSeconds(args[1], out seconds))
                        return Usage();
                    int ms = ToMs(seconds);
                    Thread sleeper = new Thread(Sleeper.Run);
                    sleeper.Name = "sleeper";
                    sleeper.Start(ms);
                    Hot.Spin(ms);
                    sleeper.Join();
                    Console.WriteLine("sleep seconds=" + Str(seconds) + " naps=" + Str(Sleeper.Naps));
                    return Sleeper.Naps > 0 ? 0 : 1;
                }
            case "spin":
                {
                    if (args.Length != 3 || !TryParseSeconds(args[2], out seconds))
                        return Usage();
                    int ms = ToMs(seconds);
                    if (args[1] == "One")
                        RuntimeOne.Spin(ms);
                    else if (args[1] == "Two")
                        RuntimeTwo.Spin(ms);
                    else
                        return Usage();
                    Console.WriteLine("spin name=" + args[1] + " seconds=" + Str(seconds));
                    return 0;
                }
            case "alc":
                {
                    if (args.Length != 2 || !TryParseSeconds(args[1], out seconds))
                        return Usage();
                    int loads = Plugin.LoadUnloadLoop(ToMs(seconds));
                    Console.WriteLine("alc seconds=" + Str(seconds) + " loads=" + Str(loads));
                    return loads > 0 ? 0 : 1;
                }
            case "bridge":
                {
                    int other;
                    if (args.Length != 3 || !TryParseInt(args[1], out other) || other < 1 ||
                        !TryParseSeconds(args[2], out seconds))
                        return Usage();
                    if (sxs_bridge_wait(other, 30000) != 0)
                    {
                        Console.Error.WriteLine("SxsSample: runtime " + Str(other) + " did not start");
                        return 1;
                    }
                    int calls = Caller.Call(other, ToMs(seconds));
                    Console.WriteLine("bridge other=" + Str(other) + " calls=" + Str(calls));
                    return calls > 0 ? 0 : 1;
                }
            default:
                return Usage();
        }
    }

    // Alternates Hot.Spin and Cold.Walk for `seconds`; hot and cold are the Stopwatch ticks spent
    // in each.
    private static void HotCold(double seconds, out long hot, out long cold)
    {
        CpuPhases = true;
        long end = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        hot = 0;
        cold = 0;
        long now = Stopwatch.GetTimestamp();
        while (now < end)
        {
            long start = now;
            Hot.Spin(9);
            long middle = Stopwatch.GetTimestamp();
            Cold.Walk(1);
            now = Stopwatch.GetTimestamp();
            hot += middle - start;
            cold += now - middle;
        }
    }

    private static int Usage()
    {
        Console.Error.WriteLine(UsageText);
        return 2;
    }

    // The Stopwatch timestamp `ms` milliseconds from now.
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static long Deadline(int ms)
    {
        return Stopwatch.GetTimestamp() + ms * Stopwatch.Frequency / 1000;
    }

    // hotcold: Hot.Spin and Cold.Walk end their phases by the thread's own CPU time
    // (CLOCK_THREAD_CPUTIME_ID); otherwise by wall time.
    internal static bool CpuPhases;
    // With CpuPhases: the Stopwatch time before which the phase cannot be over (the thread's CPU
    // time never runs ahead of wall time), so that the CPU clock, a system call, is read about
    // once a phase and the loops look at the Stopwatch only, as they do without CpuPhases.
    private static long nextLook;

    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Sec;
        public long Nsec;
    }

    [DllImport("libc.so.6", EntryPoint = "clock_gettime")]
    private static extern int ClockGetTime(int clock, out Timespec ts);

    private const int ClockThreadCpuTime = 3;

    private static long ThreadCpuNs()
    {
        Timespec ts;
        ClockGetTime(ClockThreadCpuTime, out ts);
        return ts.Sec * 1000000000L + ts.Nsec;
    }

    // The end of a phase of `ms` milliseconds from now, for PhaseOver: of the thread's CPU time
    // (ns) with CpuPhases, else of wall time (a Stopwatch timestamp).
    internal static long PhaseDeadline(int ms)
    {
        if (!CpuPhases)
            return Deadline(ms);
        nextLook = Deadline(ms);
        return ThreadCpuNs() + ms * 1000000L;
    }

    // Is the phase that ends at `end` (PhaseDeadline) over?
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static bool PhaseOver(long end)
    {
        long now = Stopwatch.GetTimestamp();
        if (!CpuPhases)
            return now >= end;
        if (now < nextLook)
            return false;
        long cpu = ThreadCpuNs();
        if (cpu >= end)
            return true;
        nextLook = now + (end - cpu) * Stopwatch.Frequency / 1000000000L;
        return false;
    }

    private static long Ms(long ticks)
    {
        return ticks * 1000 / Stopwatch.Frequency;
    }

    private static int ToMs(double seconds)
    {
        return (int)Math.Round(seconds * 1000);
    }

    private static bool TryParseSeconds(string text, out double seconds)
    {
        return double.TryParse(text, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture,
                               out seconds) && seconds <= int.MaxValue / 1000;
    }

    private static bool TryParseInt(string text, out int value)
    {
        return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value);
    }

    internal static string Str(long value)
    {
        return value.ToString(CultureInfo.InvariantCulture);
    }

    private static string Str(double value)
    {
        return value.ToString(CultureInfo.InvariantCulture);
    }
}

// The busy methods below each have their own copy of the loop so that the work is done in the
// method the frame names, not in a shared helper. A chunk is a few microseconds of work; the
// result goes to a static field so the JIT cannot drop the loop.

public static class Hot
{
    private static int sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Spin(int ms)
    {
        long end = SxsSample.PhaseDeadline(ms);
        int x = sink | 1;
        do
        {
            for (int i = 0; i < 4096; i++)
                x = (x * 1103515245 + 12345) ^ (x >> 7);
        } while (!SxsSample.PhaseOver(end));
        sink = x;
    }
}

public static class Cold
{
    private static readonly int[] table = MakeTable();
    private static int sink;

    private static int[] MakeTable()
    {
        int[] t = new int[4096];
        for (int i = 0; i < t.Length; i++)
            t[i] = (i * 2654435 + 7) & (t.Length - 1);
        return t;
    }

    // Walks the table: each step's index comes from the previous entry.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Walk(int ms)
    {
        int[] t = table;
        long end = SxsSample.PhaseDeadline(ms);
        int at = sink & (t.Length - 1), sum = 0;
        do
        {
            for (int i = 0; i < 4096; i++)
            {
                at = (t[at] + i) & (t.Length - 1);
                sum += at;
            }
        } while (!SxsSample.PhaseOver(end));
        sink = sum;
    }
}

public static class Sleeper
{
    internal static int Naps;

    // The thread's start: ms is the boxed duration in milliseconds.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run(object ms)
    {
        Naps = Nap((int)ms);
    }

    // Sleeps until `ms` have passed, 20 ms at a time; returns the number of sleeps.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Nap(int ms)
    {
        long end = SxsSample.Deadline(ms);
        int naps = 0;
        long left;
        while ((left = end - Stopwatch.GetTimestamp()) > 0)
        {
            Thread.Sleep((int)Math.Min(20, left * 1000 / Stopwatch.Frequency + 1));
            naps++;
        }
        return naps;
    }
}

public static class RuntimeOne
{
    private static int sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Spin(int ms)
    {
        long end = SxsSample.Deadline(ms);
        int x = sink | 1;
        do
        {
            for (int i = 0; i < 4096; i++)
                x = (x * 1103515245 + 12345) ^ (x >> 7);
        } while (Stopwatch.GetTimestamp() < end);
        sink = x;
    }
}

public static class RuntimeTwo
{
    private static int sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Spin(int ms)
    {
        long end = SxsSample.Deadline(ms);
        int x = sink | 3;
        do
        {
            for (int i = 0; i < 4096; i++)
                x = (x * 69069 + 1) ^ (x >> 11);
        } while (Stopwatch.GetTimestamp() < end);
        sink = x;
    }
}

public static class Caller
{
    // Calls Callee.Burn(50) in runtime `other` until `ms` have passed; returns the number of calls,
    // or -1 when a call failed.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Call(int other, int ms)
    {
        long end = SxsSample.Deadline(ms);
        int calls = 0;
        do
        {
            int burnt = SxsSample.sxs_bridge_call(other, SxsSample.AssemblyPath, "Callee", "Burn", 50);
            if (burnt < 0)
            {
                Console.Error.WriteLine("SxsSample: Callee.Burn in runtime " + SxsSample.Str(other) +
                                        " returned " + SxsSample.Str(burnt));
                return -1;
            }
            calls++;
        } while (Stopwatch.GetTimestamp() < end);
        return calls;
    }
}

public static class Callee
{
    private static int sink;

    // Burns about `ms` of CPU here; returns the milliseconds burnt.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Burn(int ms)
    {
        long start = Stopwatch.GetTimestamp();
        long end = start + ms * Stopwatch.Frequency / 1000;
        int x = sink | 1;
        long now;
        do
        {
            for (int i = 0; i < 4096; i++)
                x = (x * 1103515245 + 12345) ^ (x >> 7);
        } while ((now = Stopwatch.GetTimestamp()) < end);
        sink = x;
        return (int)((now - start) * 1000 / Stopwatch.Frequency);
    }
}

public static class Plugin
{
    // Called in a collectible context: a little work, so that it is JIT compiled there.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Work(int n)
    {
        int x = n;
        for (int i = 0; i < n; i++)
            x = (x * 31 + i) ^ (x >> 3);
        return x;
    }

    // Loads, calls and unloads this assembly in new collectible contexts until ms have passed.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int LoadUnloadLoop(int ms)
    {
        Type alcType = typeof(System.Runtime.Loader.AssemblyLoadContext);
        System.Reflection.MethodInfo unload = alcType.GetMethod("Unload");
        long end = SxsSample.Deadline(ms);
        int loads = 0;
        do
        {
            LoadCallUnload(alcType, unload, loads);
            loads++;
            GC.Collect();
            GC.WaitForPendingFinalizers();
        } while (Stopwatch.GetTimestamp() < end);
        return loads;
    }

    // In a method of its own, so that no reference to the context outlives it on the stack.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void LoadCallUnload(Type alcType, System.Reflection.MethodInfo unload, int i)
    {
        object alc = Activator.CreateInstance(alcType, new object[] { "plugin" + i.ToString(CultureInfo.InvariantCulture), true });
        var context = (System.Runtime.Loader.AssemblyLoadContext)alc;
        System.Reflection.Assembly asm = context.LoadFromAssemblyPath(SxsSample.AssemblyPath);
        asm.GetType("Plugin").GetMethod("Work").Invoke(null, new object[] { 1000 });
        unload.Invoke(alc, null);
    }
}
