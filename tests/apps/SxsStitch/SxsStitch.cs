// Stacks that interleave managed code of several runtimes with native code, for the stitcher's
// tests. Every runtime taking part runs this same assembly (the bridge binds it by simple name);
// the types sit in the global namespace so that frames read A.Outer, B.Middle, A.Inner.
//
// Usage: SxsStitch                           prints "stitch ready", returns 0
//        SxsStitch chain <outer> <middle> <inner>
//                    A.Outer runs here (runtime <outer>), calls the bridge into runtime <middle>'s
//                    B.Middle, which calls the bridge into runtime <inner>'s A.Inner, which throws
//                    an exception and catches it itself. Prints "chain result=<n>" (expects 42).
//        SxsStitch qsort
//                    Sorter.Run sorts 8 numbers with libc's qsort and a managed comparer
//                    (Sorter.Compare, reached through a function pointer); the first comparison
//                    throws and catches an exception. Prints the sorted numbers.
//        SxsStitch deep <self> <other> <levels>
//                    Deep.Level calls the other runtime's Deep.Level through the bridge, and so on,
//                    <levels> times, alternating runtimes; the last one throws and catches an
//                    exception SXS_DEEP_THROWS times (default 2000, after 200 unmeasured ones from
//                    another site) and prints
//                    "deep levels=<levels> throws=<n> ns_per_throw=<mean>". For the stitch benchmark.
//                    With SXS_DEEP_SPIN_MS=<ms> the last one spins in managed code (Deep.Spin) for
//                    that long instead, and prints "deep spin=<iterations>": a deep stack that stays
//                    put, for the sampler's capture benchmark.
//        SxsStitch counts
//                    Counts.SiteOne throws 7 times, Counts.SiteTwo 3 times (each caught), from the
//                    same Counts.Fail. Prints "counts one=7 two=3".
// Returns 0 when every value is as expected, 1 otherwise.
using System;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

public static class SxsStitch
{
    [DllImport("sxsbridge", CallingConvention = CallingConvention.Cdecl)]
    internal static extern int sxs_bridge_call(int runtimeIndex, string assemblyPath, string typeName,
                                               string methodName, int arg);

    [DllImport("sxsbridge", CallingConvention = CallingConvention.Cdecl)]
    private static extern int sxs_bridge_wait(int runtimeIndex, int timeoutMs);

    internal static string AssemblyPath
    {
        get { return typeof(SxsStitch).Assembly.Location; }
    }

    public static int Main(string[] args)
    {
        if (args.Length == 0)
        {
            Console.WriteLine("stitch ready");
            return 0;
        }
        switch (args[0])
        {
            case "chain":
                {
                    int outer = Parse(args[1]), middle = Parse(args[2]), inner = Parse(args[3]);
                    Await(middle);
                    Await(inner);
                    int result = A.Outer((middle << 4) | inner);
                    Console.WriteLine("chain result=" + Str(result));
                    return result == 42 && outer > 0 ? 0 : 1;
                }
            case "qsort":
                {
                    int[] sorted = Sorter.Run(new int[] { 5, 3, 8, 1, 9, 2, 7, 4 });
                    Console.WriteLine("qsort " + string.Join(",", Array.ConvertAll(sorted, Str)));
                    return sorted[0] == 1 && sorted[7] == 9 ? 0 : 1;
                }
            case "deep":
                {
                    int self = Parse(args[1]), other = Parse(args[2]), levels = Parse(args[3]);
                    Await(other);
                    int result = Deep.Level((levels << 8) | (self << 4) | other);
                    return result == 1 ? 0 : 1;
                }
            case "counts":
                {
                    int one = Counts.SiteOne(), two = Counts.SiteTwo();
                    Console.WriteLine("counts one=" + Str(one) + " two=" + Str(two));
                    return one == 7 && two == 3 ? 0 : 1;
                }
            default:
                Console.Error.WriteLine("SxsStitch: unknown command " + args[0]);
                return 2;
        }
    }

    private static void Await(int runtime)
    {
        if (sxs_bridge_wait(runtime, 30000) != 0)
            Console.Error.WriteLine("SxsStitch: runtime " + Str(runtime) + " did not start");
    }

    internal static int Parse(string text)
    {
        return int.Parse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture);
    }

    internal static string Str(int value)
    {
        return value.ToString(CultureInfo.InvariantCulture);
    }
}

public static class A
{
    // packed: the middle runtime's index (bits 4-7) and the inner one's (bits 0-3).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Outer(int packed)
    {
        int r = SxsStitch.sxs_bridge_call(packed >> 4, SxsStitch.AssemblyPath, "B", "Middle", packed & 0xF);
        return r;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Inner(int arg)
    {
        try
        {
            throw new InvalidOperationException("inner " + SxsStitch.Str(arg));
        }
        catch (InvalidOperationException)
        {
            return 42;
        }
    }
}

public static class B
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Middle(int inner)
    {
        return SxsStitch.sxs_bridge_call(inner, SxsStitch.AssemblyPath, "A", "Inner", inner);
    }
}

public static class Sorter
{
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    private delegate int Comparer(IntPtr a, IntPtr b);

    [DllImport("libc.so.6", EntryPoint = "qsort", CallingConvention = CallingConvention.Cdecl)]
    private static extern void qsort(IntPtr data, UIntPtr count, UIntPtr size, Comparer compare);

    private static int comparisons;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int[] Run(int[] values)
    {
        IntPtr data = Marshal.AllocHGlobal(values.Length * 4);
        try
        {
            Marshal.Copy(values, 0, data, values.Length);
            Comparer compare = Compare;
            qsort(data, (UIntPtr)values.Length, (UIntPtr)4, compare);
            GC.KeepAlive(compare);
            int[] sorted = new int[values.Length];
            Marshal.Copy(data, sorted, 0, values.Length);
            return sorted;
        }
        finally
        {
            Marshal.FreeHGlobal(data);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Compare(IntPtr a, IntPtr b)
    {
        if (comparisons++ == 0)
        {
            try
            {
                throw new ArgumentException("first comparison");
            }
            catch (ArgumentException)
            {
            }
        }
        return Marshal.ReadInt32(a).CompareTo(Marshal.ReadInt32(b));
    }
}

public static class Deep
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Level(int packed)
    {
        int levels = packed >> 8, self = (packed >> 4) & 0xF, other = packed & 0xF;
        if (levels == 0)
            return Leaf();
        return SxsStitch.sxs_bridge_call(other, SxsStitch.AssemblyPath, "Deep", "Level",
                                         ((levels - 1) << 8) | (other << 4) | self);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Leaf()
    {
        string spin = Environment.GetEnvironmentVariable("SXS_DEEP_SPIN_MS");
        if (!string.IsNullOrEmpty(spin))
        {
            long iterations = Spin(SxsStitch.Parse(spin));
            Console.WriteLine("deep spin=" + iterations.ToString(CultureInfo.InvariantCulture));
            return 1;
        }
        string text = Environment.GetEnvironmentVariable("SXS_DEEP_THROWS");
        int n = string.IsNullOrEmpty(text) ? 2000 : SxsStitch.Parse(text);
        for (int i = 0; i < 200; i++)
            WarmUp(i);
        System.Diagnostics.Stopwatch watch = System.Diagnostics.Stopwatch.StartNew();
        for (int i = 0; i < n; i++)
            Throw(i);
        watch.Stop();
        double ns = watch.Elapsed.TotalMilliseconds * 1e6 / n;
        Console.WriteLine("deep throws=" + SxsStitch.Str(n) + " ns_per_throw=" +
                          ((long)ns).ToString(CultureInfo.InvariantCulture));
        return 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Spin(int ms)
    {
        System.Diagnostics.Stopwatch watch = System.Diagnostics.Stopwatch.StartNew();
        long iterations = 0;
        ulong x = 1;
        while (watch.ElapsedMilliseconds < ms)
        {
            for (int i = 0; i < 100000; i++)
                x = x * 6364136223846793005UL + 1442695040888963407UL;
            iterations++;
        }
        return x == 0 ? 0 : iterations;
    }

    // The warm-up throws from a site of its own, so the measured loop's stack is a second one, named
    // with every module's symbols already read.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void WarmUp(int i)
    {
        try
        {
            throw new InvalidOperationException("warm-up");
        }
        catch (InvalidOperationException)
        {
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Throw(int i)
    {
        try
        {
            throw new InvalidOperationException("deep");
        }
        catch (InvalidOperationException)
        {
        }
    }
}

public static class Counts
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int SiteOne()
    {
        int caught = 0;
        for (int i = 0; i < 7; i++)
        {
            try
            {
                Fail(i);
            }
            catch (InvalidOperationException)
            {
                caught++;
            }
        }
        return caught;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int SiteTwo()
    {
        int caught = 0;
        for (int i = 0; i < 3; i++)
        {
            try
            {
                Fail(i);
            }
            catch (InvalidOperationException)
            {
                caught++;
            }
        }
        return caught;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Fail(int i)
    {
        throw new InvalidOperationException("fail " + SxsStitch.Str(i));
    }
}
