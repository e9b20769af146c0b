// Exact, known amounts of the events the exception, contention and allocation profiles record, so
// tests can compare each profile against what the program did.
//
// Usage: Profiles exceptions <a> <b>
//          throws <a> InvalidOperationExceptions from Sites.ThrowA and <b> ArgumentExceptions from
//          Sites.ThrowB (each caught); prints "exceptions a=<a> b=<b>"
//        Profiles contention <rounds> <hold_ms>
//          <rounds> times, a second thread holds one lock for <hold_ms> ms while the main thread
//          waits for it in Sxs.Tests.Locks.Contend: about rounds x hold_ms of contention in all;
//          prints "contention rounds=R hold_ms=H"
//        Profiles alloc <big> <small>
//          allocates <big> 64 KiB byte arrays in Sxs.Tests.Allocs.Big and <small> Sxs.Tests.Small
//          objects (two longs: 32 bytes on 64-bit) in Sxs.Tests.Allocs.Small, keeping the last of
//          each; prints "alloc big=B small=S"
using System;
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
                Locks.Run(rounds, hold);
                Console.WriteLine("contention rounds=" + Str(rounds) + " hold_ms=" + Str(hold));
                return 0;
            }
            if (args.Length == 3 && args[0] == "alloc")
            {
                int big = Parse(args[1]), small = Parse(args[2]);
                int madeBig = Allocs.Big(big), madeSmall = Allocs.Small(small);
                Console.WriteLine("alloc big=" + Str(madeBig) + " small=" + Str(madeSmall));
                return 0;
            }
            Console.Error.WriteLine("usage: Profiles exceptions <a> <b> | contention <rounds> <hold_ms> | alloc <big> <small>");
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
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Run(int rounds, int hold)
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
            for (int r = 0; r < rounds; r++)
            {
                taken.WaitOne();
                Contend();
                done.Set();
            }
            holder.Join();
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
