// CPU work split between known functions, for the comparison tests (sxsprof diff, report
// --compare). As in SxsSample, every busy method is NoInlining and spins in a loop of its own
// (integer arithmetic, no allocations or calls), so that nearly
// all samples of the working thread land in the method the frame names. Work is counted in chunks
// of 2048 steps, not in time, so that the split of CPU time holds on a busy machine too.
//
// Usage: Shift split <percent> <rounds>
//                    The main thread runs <rounds> rounds of 1000 chunks: Alpha.Spin does
//                    10 * <percent> of them, Beta.Spin the rest, so that Alpha gets <percent> % of
//                    the loop's CPU time and Beta the rest, and two runs do the same work whatever
//                    the split (and however busy the machine). Prints "split percent=<P> rounds=<N>".
//        Shift version <rounds>
//                    A thread named "shift-work" runs <rounds> rounds of Alpha.Spin (1000 chunks),
//                    Beta.Spin (1000 chunks) and Gamma.Parse: 700 chunks on runtimes before .NET
//                    10, 2100 on .NET 10 or later (the "slower path" of one function on one
//                    runtime). Prints "version major=<M> gamma_chunks=<G> rounds=<N>".
// Returns 0, or 2 (with a usage line on stderr) for bad arguments.
using System;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Threading;

public static class Shift
{
    public static int Main(string[] args)
    {
        int a, b;
        if (args.Length == 3 && args[0] == "split" && TryParseInt(args[1], out a) && a <= 100 &&
            TryParseInt(args[2], out b))
        {
            for (int i = 0; i < b; i++)
            {
                Alpha.Spin(a * 10);
                Beta.Spin((100 - a) * 10);
            }
            Console.WriteLine("split percent=" + Str(a) + " rounds=" + Str(b));
            return 0;
        }
        if (args.Length == 2 && args[0] == "version" && TryParseInt(args[1], out a))
        {
            int gamma = Environment.Version.Major >= 10 ? 2100 : 700;
            Thread t = new Thread(Rounds);
            t.Name = "shift-work";
            t.Start(new int[] { a, gamma });
            t.Join();
            Console.WriteLine("version major=" + Str(Environment.Version.Major) + " gamma_chunks=" + Str(gamma) +
                              " rounds=" + Str(a));
            return 0;
        }
        Console.Error.WriteLine("usage: Shift split <percent> <rounds> | version <rounds>");
        return 2;
    }

    private static void Rounds(object state)
    {
        int[] p = (int[])state;
        for (int i = 0; i < p[0]; i++)
        {
            Alpha.Spin(1000);
            Beta.Spin(1000);
            Gamma.Parse(p[1]);
        }
    }

    private static bool TryParseInt(string text, out int value)
    {
        return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value);
    }

    private static string Str(long value)
    {
        return value.ToString(CultureInfo.InvariantCulture);
    }
}

public static class Alpha
{
    private static int sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Spin(int chunks)
    {
        int x = sink | 1;
        for (int c = 0; c < chunks; c++)
        {
            for (int i = 0; i < 2048; i++)
                x = (x * 1103515245 + 12345) ^ (x >> 7);
        }
        sink = x;
    }
}

public static class Beta
{
    private static int sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Spin(int chunks)
    {
        int x = sink | 3;
        for (int c = 0; c < chunks; c++)
        {
            for (int i = 0; i < 2048; i++)
                x = (x * 22695477 + 1) ^ (x >> 9);
        }
        sink = x;
    }
}

public static class Gamma
{
    private static int sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Parse(int chunks)
    {
        int x = sink | 5;
        for (int c = 0; c < chunks; c++)
        {
            for (int i = 0; i < 2048; i++)
                x = (x * 134775813 + 1) ^ (x >> 5);
        }
        sink = x;
    }
}
