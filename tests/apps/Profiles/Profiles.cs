// Exact, known amounts of the events the exception, contention and allocation profiles record, so
// tests can compare each profile against what the program did.
//
// Usage: Profiles exceptions <a> <b>
//          throws <a> InvalidOperationExceptions from Sites.ThrowA and <b> ArgumentExceptions from
//          Sites.ThrowB (each caught); prints "exceptions a=<a> b=<b>"
//        Profiles contention <rounds> <hold_ms>
//          <rounds> times, a second thread holds one lock for <hold_ms> ms while the main thread
//          waits for it in Sxs.Tests.Locks.Contend: about rounds x hold_ms of contention in all;
//          prints "contention rounds=R hold_ms=H", then "contended_us=U": the time the main thread
//          spent in Contend, measured around each call (a busy machine makes each wait longer)
//        Profiles alloc <big> <small> [<keep>]
//          allocates <big> 64 KiB byte arrays in Sxs.Tests.Allocs.Big and <small> Sxs.Tests.Small
//          objects (two longs: 32 bytes on 64-bit) in Sxs.Tests.Allocs.Small, keeping the last of
//          each; prints "alloc big=B small=S". With <keep> (> 0), every <keep>-th array stays alive
//          in a list to the end (the GC promotes and keeps them: a heap that grows), the arrays
//          come from Sxs.Tests.Allocs.Keep, and the line goes on with " kept=K heap=H": K arrays
//          kept, H the bytes GC.GetTotalMemory(true) reports after a full collection at the end,
//          with the kept arrays still alive
//        Profiles interleaved <big> <small>
//          the same allocations as `alloc <big> <small>` (arrays in Sxs.Tests.Allocs.Big, small
//          objects in Sxs.Tests.Allocs.Small), interleaved: after each array, its share of the
//          small objects; prints "interleaved big=B small=S"
//        Profiles locks <threads> <iterations> <work>
//          <threads> threads each take one lock <iterations> times in Sxs.Tests.Locks.Take, with a
//          loop of <work> steps and a Thread.Yield inside (the holder gives up its CPU, so the
//          others find the lock held past their spinning and wait): lock-heavy, a contention every
//          few takings; prints "locks threads=T total=N"
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Sxs.Tests
{
    public static class Profiles
    {
        public static int Main(string[] args)
        {
            if (args.Length == 3 && args[0] == "exceptions")
            {
                int a = Parse(args[1]), b = Parse(args[2]);
                int caughtA = Sites.RunA(a), caughtB = Sites.RunB(b);
                Console.WriteLine("exceptions a=" + Str(caughtA) + " b=" + Str(caughtB));
                return 0;
            }
            if (args.Length == 3 && args[0] == "contention")
            {
                int rounds = Parse(args[1]), hold = Parse(args[2]);
                long contended = Locks.Run(rounds, hold);
                Console.WriteLine("contention rounds=" + Str(rounds) + " hold_ms=" + Str(hold));
                Console.WriteLine("contended_us=" + contended.ToString(CultureInfo.InvariantCulture));
                return 0;
            }
            if (args.Length == 3 && args[0] == "alloc")
            {
                int big = Parse(args[1]), small = Parse(args[2]);
                int madeBig = Allocs.Big(big), madeSmall = Allocs.Small(small);
                Console.WriteLine("alloc big=" + Str(madeBig) + " small=" + Str(madeSmall));
                return 0;
            }
            if (args.Length == 4 && args[0] == "alloc" && Parse(args[3]) > 0)
            {
                int big = Parse(args[1]), small = Parse(args[2]), keep = Parse(args[3]);
                var kept = new List<byte[]>();
                int madeBig = 0;
                for (int i = 0; i < big; i++)
                    madeBig += Allocs.Keep(kept, i % keep == 0);
                int madeSmall = Allocs.Small(small);
                long heap = GC.GetTotalMemory(true);
                Console.WriteLine("alloc big=" + Str(madeBig) + " small=" + Str(madeSmall) + " kept=" + Str(kept.Count) +
                                  " heap=" + heap.ToString(CultureInfo.InvariantCulture));
                GC.KeepAlive(kept);
                return 0;
            }
            if (args.Length == 3 && args[0] == "interleaved")
            {
                int big = Parse(args[1]), small = Parse(args[2]);
                int madeBig = 0, madeSmall = 0;
                for (int i = 0; i < big; i++)
                {
                    madeBig += Allocs.Big(1);
                    madeSmall += Allocs.Small(small / big + (i < small % big ? 1 : 0));
                }
                Console.WriteLine("interleaved big=" + Str(madeBig) + " small=" + Str(madeSmall));
                return 0;
            }
            if (args.Length == 4 && args[0] == "locks")
            {
                int threads = Parse(args[1]), iterations = Parse(args[2]), work = Parse(args[3]);
                long total = Locks.Churn(threads, iterations, work);
                Console.WriteLine("locks threads=" + Str(threads) + " total=" + total.ToString(CultureInfo.InvariantCulture));
                return 0;
            }
            Console.Error.WriteLine("usage: Profiles exceptions <a> <b> | contention <rounds> <hold_ms> | alloc <big> <small> [<keep>] | interleaved <big> <small> | locks <threads> <iterations> <work>");
            return 2;
        }

        private static int Parse(string text)
        {
            return int.Parse(text, NumberStyles.None, CultureInfo.InvariantCulture);
        }

        private static string Str(int value)
        {
            return value.ToString(CultureInfo.InvariantCulture);
        }
    }

    public static class Sites
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int RunA(int count)
        {
            int caught = 0;
            for (int i = 0; i < count; i++)
            {
                try
                {
                    ThrowA(i);
                }
                catch (InvalidOperationException)
                {
                    caught++;
                }
            }
            return caught;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int RunB(int count)
        {
            int caught = 0;
            for (int i = 0; i < count; i++)
            {
                try
                {
                    ThrowB(i);
                }
                catch (ArgumentException)
                {
                    caught++;
                }
            }
            return caught;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void ThrowA(int index)
        {
            throw new InvalidOperationException("a " + index.ToString(CultureInfo.InvariantCulture));
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void ThrowB(int index)
        {
            throw new ArgumentException("b " + index.ToString(CultureInfo.InvariantCulture));
        }
    }

    public static class Locks
    {
        private static readonly object Gate = new object();

        // The holder takes the lock and says so; the main thread then blocks on it in Contend
        // until the holder lets go, hold ms later. Each round starts when the last has ended.
        // Returns the µs spent in Contend in all.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Run(int rounds, int hold)
        {
            var taken = new AutoResetEvent(false);
            var done = new AutoResetEvent(false);
            var holder = new Thread(() =>
            {
                for (int r = 0; r < rounds; r++)
                {
                    Hold(taken, hold);
                    done.WaitOne();
                }
            });
            holder.Name = "sxs-holder";
            holder.Start();
            long ticks = 0;
            for (int r = 0; r < rounds; r++)
            {
                taken.WaitOne();
                long start = System.Diagnostics.Stopwatch.GetTimestamp();
                Contend();
                ticks += System.Diagnostics.Stopwatch.GetTimestamp() - start;
                done.Set();
            }
            holder.Join();
            return ticks * 1000000 / System.Diagnostics.Stopwatch.Frequency;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Hold(AutoResetEvent taken, int hold)
        {
            lock (Gate)
            {
                taken.Set();
                Thread.Sleep(hold);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Contend()
        {
            lock (Gate)
            {
            }
        }

        private static readonly object Counter = new object();
        private static long count;
        private static long sink;

        // Every thread takes the same lock iterations times, with work steps and a yield inside:
        // the threads queue on it, and most takings wait for it.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Churn(int threads, int iterations, int work)
        {
            count = 0;
            var all = new Thread[threads];
            for (int t = 0; t < threads; t++)
            {
                all[t] = new Thread(() =>
                {
                    for (int i = 0; i < iterations; i++)
                        Take(i, work);
                });
                all[t].Start();
            }
            foreach (var t in all)
                t.Join();
            return count;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Take(int i, int work)
        {
            lock (Counter)
            {
                long x = 0;
                for (int k = 0; k < work; k++)
                    x += (i ^ k) & 1;
                sink += x;
                count++;
                Thread.Yield();
            }
        }
    }

    public sealed class Small
    {
        public long A;
        public long B;
    }

    public static class Allocs
    {
        public static byte[] LastBig;
        public static Small LastSmall;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Big(int count)
        {
            int made = 0;
            for (int i = 0; i < count; i++)
            {
                LastBig = new byte[64 * 1024];
                made++;
            }
            return made;
        }

        // Allocates one 64 KiB array here too (the same site as Big for the profile: its own
        // frame) and keeps it in the list when asked.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Keep(List<byte[]> kept, bool keep)
        {
            var a = new byte[64 * 1024];
            LastBig = a;
            if (keep)
                kept.Add(a);
            return 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Small(int count)
        {
            int made = 0;
            for (int i = 0; i < count; i++)
            {
                LastSmall = new Small { A = i, B = made };
                made++;
            }
            return made;
        }
    }
}
