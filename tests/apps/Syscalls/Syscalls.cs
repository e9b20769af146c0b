// Threads that block in system calls in a loop, each counting what a signal could make visible to
// it: a call failing with EINTR, a short result, a sleep that ended early. Called through P/Invoke
// straight into libc, as a program's own native code would make them, with no retry of its own.
//
// The loops allocate nothing and are compiled once: their threads hardly ever run.
//
// Usage: Syscalls <seconds>
//            Four threads, each first making its call a few times and then sleeping about 1.5 s
//            (so that start-up is long over), then looping on it for <seconds> of wall time:
//              "sys-read"   read() of 64 bytes from a pipe that "sys-write" fills with 64 bytes
//                           every 5 ms; short: a read of other than 64 bytes
//              "sys-sleep"  nanosleep() of 10 ms; short: less than 10 ms elapsed (the call said
//                           it slept), or time left in its second argument
//              "sys-epoll"  epoll_wait() of 10 ms on a pipe nobody writes; short: an event
//              "sys-poll"   poll() of 10 ms on that pipe; short: an event
//            Prints "syscalls seconds=<seconds> read=<N> sleep=<N> epoll=<N> poll=<N> eintr=<E>
//            short=<S>" (N: calls made in the loops, E: calls that failed with EINTR, S: short
//            results), then "eintr <thread>=<E> ... warm-up=<W>" (each loop's E, and the calls
//            of the warm-ups that failed with EINTR, which are not judged).
// Returns 0 when every loop made calls and none failed or came back short, 1 otherwise, and 2
// (with a usage line on stderr) for bad arguments.
using System;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

public static class Syscalls
{
    private const int EINTR = 4;

    // AggressiveOptimization (.NET Core 3.0 and later; this app is compiled against 2.0): the loops
    // are compiled once, fully optimized, so that no tier-up or on-stack replacement makes their
    // threads run for milliseconds in the middle of the loop.
    internal const MethodImplOptions Optimized = (MethodImplOptions)512;

    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [StructLayout(LayoutKind.Sequential, Pack = 1)]
    private struct EpollEvent
    {
        public uint Events;
        public ulong Data;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct PollFd
    {
        public int Fd;
        public short Events;
        public short Revents;
    }

    [DllImport("libc.so.6", SetLastError = true)]
    private static extern int pipe([Out] int[] fds);

    [DllImport("libc.so.6", SetLastError = true)]
    private static extern IntPtr read(int fd, [Out] byte[] buf, IntPtr count);

    [DllImport("libc.so.6", SetLastError = true)]
    private static extern IntPtr write(int fd, byte[] buf, IntPtr count);

    [DllImport("libc.so.6", SetLastError = true)]
    private static extern int nanosleep(ref Timespec req, out Timespec rem);

    [DllImport("libc.so.6", SetLastError = true)]
    private static extern int epoll_create1(int flags);

    [DllImport("libc.so.6", SetLastError = true)]
    private static extern int epoll_ctl(int epfd, int op, int fd, ref EpollEvent ev);

    [DllImport("libc.so.6", SetLastError = true)]
    private static extern int epoll_wait(int epfd, [Out] EpollEvent[] events, int maxevents, int timeout);

    [DllImport("libc.so.6", SetLastError = true)]
    private static extern int poll([In, Out] PollFd[] fds, UIntPtr nfds, int timeout);

    private static readonly string[] Names = { "sys-read", "sys-sleep", "sys-epoll", "sys-poll" };
    private static long[] calls = new long[4], eintr = new long[4], shorts = new long[4];
    private static int[] dataPipe = new int[2], idlePipe = new int[2];
    private static volatile bool started, stop;
    private static int warm;
    private static long warmEintr;

    public static int Main(string[] args)
    {
        double seconds;
        if (args.Length != 1 || !double.TryParse(args[0], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds) ||
            seconds <= 0)
        {
            Console.Error.WriteLine("usage: Syscalls <seconds>");
            return 2;
        }
        if (pipe(dataPipe) != 0 || pipe(idlePipe) != 0)
        {
            Console.Error.WriteLine("pipe failed: errno " + Marshal.GetLastWin32Error());
            return 1;
        }
        Thread writer = new Thread(Writer.Run);
        writer.Name = "sys-write";
        writer.Start();
        Thread[] loops = new Thread[4];
        ParameterizedThreadStart[] bodies = { ReadLoop.Run, SleepLoop.Run, EpollLoop.Run, PollLoop.Run };
        for (int i = 0; i < loops.Length; i++)
        {
            loops[i] = new Thread(bodies[i]);
            loops[i].Name = Names[i];
            loops[i].Start(i);
        }
        while (Volatile.Read(ref warm) < loops.Length)
            Thread.Sleep(10);
        // The loops start once their threads have waited a while: what they did at start is then
        // long past for a profiler that looks at how much a thread runs.
        Thread.Sleep(1500);
        started = true;
        Thread.Sleep((int)(seconds * 1000));
        stop = true;
        foreach (Thread t in loops)
            t.Join();
        writer.Join();
        long all = 0, failed = 0, bad = 0, idle = 0;
        for (int i = 0; i < loops.Length; i++)
        {
            all += calls[i];
            failed += eintr[i];
            bad += shorts[i];
            idle += calls[i] == 0 ? 1 : 0;
        }
        Console.WriteLine("syscalls seconds=" + seconds.ToString(CultureInfo.InvariantCulture) + " read=" + Str(calls[0]) +
                          " sleep=" + Str(calls[1]) + " epoll=" + Str(calls[2]) + " poll=" + Str(calls[3]) +
                          " eintr=" + Str(failed) + " short=" + Str(bad));
        string line = "eintr";
        for (int i = 0; i < loops.Length; i++)
            line += " " + Names[i] + "=" + Str(eintr[i]);
        Console.WriteLine(line + " warm-up=" + Str(Interlocked.Read(ref warmEintr)));
        return failed == 0 && bad == 0 && idle == 0 ? 0 : 1;
    }

    private static string Str(long v)
    {
        return v.ToString(CultureInfo.InvariantCulture);
    }

    // Warm-up (the calls compiled and resolved, the thread seen by a profiler), then the loop.
    internal static bool Begin(Func<int, bool> call, int index)
    {
        for (int i = 0; i < 3; i++)
            call(index);
        Interlocked.Increment(ref warm);
        while (!started)
            Thread.Sleep(300);
        return true;
    }

    // The warm-up's counts are its own (reported, not judged): the loop's start from zero.
    internal static void Settle(int index)
    {
        Interlocked.Add(ref warmEintr, eintr[index]);
        calls[index] = eintr[index] = shorts[index] = 0;
    }

    // One call's outcome: -1 with errno EINTR, or a result the caller judged short.
    internal static void Count(int index, bool failedEintr, bool isShort)
    {
        calls[index]++;
        if (failedEintr)
            eintr[index]++;
        else if (isShort)
            shorts[index]++;
    }

    internal static bool Interrupted()
    {
        return Marshal.GetLastWin32Error() == EINTR;
    }

    public static class Writer
    {
        public static void Run()
        {
            byte[] chunk = new byte[64];
            Timespec gap = new Timespec { Seconds = 0, Nanoseconds = 5000000 };
            Timespec left;
            while (!stop)
            {
                write(dataPipe[1], chunk, (IntPtr)chunk.Length);
                nanosleep(ref gap, out left);
            }
            write(dataPipe[1], chunk, (IntPtr)chunk.Length);
        }
    }

    public static class ReadLoop
    {
        private static readonly byte[] buffer = new byte[64];

        [MethodImpl(MethodImplOptions.NoInlining | Optimized)]
        private static bool Once(int index)
        {
            long got = (long)read(dataPipe[0], buffer, (IntPtr)buffer.Length);
            bool failed = got < 0 && Interrupted();
            Count(index, failed, !failed && got != buffer.Length);
            return true;
        }

        [MethodImpl(Optimized)]
        public static void Run(object index)
        {
            int i = (int)index;
            Begin(Once, i);
            Settle(i);
            while (!stop)
                Once(i);
        }
    }

    public static class SleepLoop
    {
        [MethodImpl(MethodImplOptions.NoInlining | Optimized)]
        private static bool Once(int index)
        {
            Timespec req = new Timespec { Seconds = 0, Nanoseconds = 10000000 }, rem;
            long start = Stopwatch.GetTimestamp();
            int r = nanosleep(ref req, out rem);
            double ms = (Stopwatch.GetTimestamp() - start) * 1000.0 / Stopwatch.Frequency;
            bool failed = r != 0 && Interrupted();
            Count(index, failed, !failed && ms < 9.999);
            return true;
        }

        [MethodImpl(Optimized)]
        public static void Run(object index)
        {
            int i = (int)index;
            Begin(Once, i);
            Settle(i);
            while (!stop)
                Once(i);
        }
    }

    public static class EpollLoop
    {
        private static int epfd = -1;
        private static readonly EpollEvent[] events = new EpollEvent[1];

        [MethodImpl(MethodImplOptions.NoInlining | Optimized)]
        private static bool Once(int index)
        {
            int r = epoll_wait(epfd, events, 1, 10);
            bool failed = r < 0 && Interrupted();
            Count(index, failed, !failed && r != 0);
            return true;
        }

        [MethodImpl(Optimized)]
        public static void Run(object index)
        {
            int i = (int)index;
            epfd = epoll_create1(0);
            EpollEvent ev = new EpollEvent { Events = 1 /* EPOLLIN */, Data = 0 };
            epoll_ctl(epfd, 1 /* EPOLL_CTL_ADD */, idlePipe[0], ref ev);
            Begin(Once, i);
            Settle(i);
            while (!stop)
                Once(i);
        }
    }

    public static class PollLoop
    {
        private static readonly PollFd[] fds = new PollFd[1];

        [MethodImpl(MethodImplOptions.NoInlining | Optimized)]
        private static bool Once(int index)
        {
            fds[0].Fd = idlePipe[0];
            fds[0].Events = 1; // POLLIN
            fds[0].Revents = 0;
            int r = poll(fds, (UIntPtr)1, 10);
            bool failed = r < 0 && Interrupted();
            Count(index, failed, !failed && r != 0);
            return true;
        }

        [MethodImpl(Optimized)]
        public static void Run(object index)
        {
            int i = (int)index;
            Begin(Once, i);
            Settle(i);
            while (!stop)
                Once(i);
        }
    }
}
