// Many threads at once, for the sampler's rate with any number of threads (wall mode samples every
// thread, sleeping or not). Threads are named so that each can be found in a profile: the OS name
// of a .NET thread is its Thread.Name (its first 15 characters).
//
// Usage: Threads <threads> <spinning> <seconds> [<nap ms> [<pairs>]]
//            Starts <threads> threads: the first <spinning> named "spin-<i>" run Spinner.Spin
//            (integer arithmetic, no allocation, no call), the others named "nap-<i>" run
//            Napper.Nap (Thread.Sleep(<nap ms>) in a loop, 20 ms by default), i from 0; and <pairs>
//            pairs of threads named "pong-<j>a" and "pong-<j>b" (0 by default) that run Ponger.Bounce:
//            each does a short burst of arithmetic (some 20 µs), wakes the other and waits for it
//            (AutoResetEvent), so that each comes on a CPU tens of thousands of times a second. Once every thread has started
//            (a countdown), the main thread sleeps <seconds> of wall time, then tells them to stop
//            and joins them. Prints "threads started=<N> spinning=<S> seconds=<seconds>
//            naps=<K> spins=<M>" (K: naps taken in all, M: spin chunks in all), then " bounces=<B>"
//            with pairs (bursts in all).
// <seconds> may have a fraction. Returns 0 when every thread started and ran (each took at least
// one nap or one spin chunk), 1 otherwise, and 2 (with a usage line on stderr) for bad arguments.
using System;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Threading;

public static class Threads
{
    private static volatile bool stop;
    private static CountdownEvent started;
    private static long naps, spins;
    private static int[] ran;
    internal static int napMs;

    public static int Main(string[] args)
    {
        int count, spinning, nap = 20, pairs = 0;
        double seconds;
        if (args.Length < 3 || args.Length > 5 ||
            !int.TryParse(args[0], NumberStyles.Integer, CultureInfo.InvariantCulture, out count) ||
            !int.TryParse(args[1], NumberStyles.Integer, CultureInfo.InvariantCulture, out spinning) ||
            !double.TryParse(args[2], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds) ||
            (args.Length >= 4 && !int.TryParse(args[3], NumberStyles.Integer, CultureInfo.InvariantCulture, out nap)) ||
            (args.Length == 5 && !int.TryParse(args[4], NumberStyles.Integer, CultureInfo.InvariantCulture, out pairs)) ||
            count < 1 || spinning < 0 || spinning > count || seconds < 0 || nap < 1 || pairs < 0)
        {
            Console.Error.WriteLine("usage: Threads <threads> <spinning> <seconds> [<nap ms> [<pairs>]]");
            return 2;
        }
        napMs = nap;
        started = new CountdownEvent(count + 2 * pairs);
        ran = new int[count + 2 * pairs];
        Thread[] threads = new Thread[count + 2 * pairs];
        for (int i = 0; i < count; i++)
        {
            bool spins = i < spinning;
            // A small stack: 500 threads of the default size would reserve gigabytes.
            threads[i] = new Thread(spins ? (ParameterizedThreadStart)Spinner.Spin : Napper.Nap, 256 * 1024);
            threads[i].Name = (spins ? "spin-" : "nap-") + i.ToString(CultureInfo.InvariantCulture);
            threads[i].Start(i);
        }
        for (int j = 0; j < pairs; j++)
        {
            var pair = new Ponger(count + 2 * j);
            for (int k = 0; k < 2; k++)
            {
                int side = k;
                int at = count + 2 * j + k;
                threads[at] = new Thread(() => pair.Bounce(side), 256 * 1024);
                threads[at].Name = "pong-" + j.ToString(CultureInfo.InvariantCulture) + (k == 0 ? "a" : "b");
                threads[at].Start();
            }
        }
        started.Wait();
        Thread.Sleep((int)(seconds * 1000));
        stop = true;
        foreach (Thread t in threads)
            t.Join();
        int all = 0;
        foreach (int r in ran)
            all += r > 0 ? 1 : 0;
        Console.WriteLine("threads started=" + Str(count) + " spinning=" + Str(spinning) + " seconds=" +
                          seconds.ToString(CultureInfo.InvariantCulture) + " naps=" + Str(Interlocked.Read(ref naps)) +
                          " spins=" + Str(Interlocked.Read(ref spins)) +
                          (pairs > 0 ? " bounces=" + Str(Interlocked.Read(ref Ponger.bounces)) : ""));
        return all == count + 2 * pairs ? 0 : 1;
    }

    private static string Str(long v)
    {
        return v.ToString(CultureInfo.InvariantCulture);
    }

    internal static void Ran(int index, long n, bool spun)
    {
        ran[index] = n > 0 ? 1 : 0;
        if (spun)
            Interlocked.Add(ref spins, n);
        else
            Interlocked.Add(ref naps, n);
    }

    internal static void Bounced(int index, long n)
    {
        ran[index] = n > 0 ? 1 : 0;
    }

    internal static bool Stopped
    {
        get { return stop; }
    }

    internal static void Started()
    {
        started.Signal();
    }
}

public static class Napper
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Nap(object index)
    {
        Threads.Started();
        long n = 0;
        do
        {
            Thread.Sleep(Threads.napMs);
            n++;
        } while (!Threads.Stopped);
        Threads.Ran((int)index, n, false);
    }
}

public static class Spinner
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Spin(object index)
    {
        Threads.Started();
        long n = 0;
        ulong x = 1;
        do
        {
            for (int i = 0; i < 100000; i++)
                x = x * 6364136223846793005UL + 1442695040888963407UL;
            n++;
        } while (!Threads.Stopped);
        Threads.Ran((int)index, x == 0 ? n + 1 : n, true);
    }
}

public sealed class Ponger
{
    internal static long bounces;
    private readonly AutoResetEvent[] turn = { new AutoResetEvent(true), new AutoResetEvent(false) };
    private readonly int first;

    public Ponger(int first)
    {
        this.first = first;
    }

    // Side 0 starts. Each turn: a burst, then the other side's turn; the last turn of each side
    // after the stop still wakes the other, so that both see it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public void Bounce(int side)
    {
        Threads.Started();
        long n = 0;
        ulong x = 1;
        while (true)
        {
            turn[side].WaitOne();
            if (Threads.Stopped)
            {
                turn[1 - side].Set();
                break;
            }
            x = Burst(x);
            n++;
            turn[1 - side].Set();
        }
        Interlocked.Add(ref bounces, x == 0 ? n + 1 : n);
        Threads.Bounced(first + side, n);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong Burst(ulong x)
    {
        for (int i = 0; i < 20000; i++)
            x = x * 6364136223846793005UL + 1442695040888963407UL;
        return x;
    }
}
