// Exact, known amounts of the events the exception, contention and allocation profiles record, so
// tests can compare each profile against what the program did.
//
// Usage: Profiles exceptions <a> <b>
//          throws <a> InvalidOperationExceptions from Sites.ThrowA and <b> ArgumentExceptions from
//          Sites.ThrowB (each caught); prints "exceptions a=<a> b=<b>"
//        Profiles contention <threads> <hold_ms> <rounds>
//          <threads> threads take one lock <rounds> times each, holding it <hold_ms> ms, inside
//          Locks.Contend; prints "contention threads=T hold_ms=H rounds=R"
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
            if (args.Length == 4 && args[0] == "contention")
            {
                int threads = Parse(args[1]), hold = Parse(args[2]), rounds = Parse(args[3]);
                Locks.Run(threads, hold, rounds);
                Console.WriteLine("contention threads=" + Str(threads) + " hold_ms=" + Str(hold) + " rounds=" +
                                  Str(rounds));
                return 0;
            }
            Console.Error.WriteLine("usage: Profiles exceptions <a> <b> | contention <threads> <hold_ms> <rounds>");
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

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Run(int threads, int hold, int rounds)
        {
            var started = new Thread[threads];
            for (int i = 0; i < threads; i++)
            {
                started[i] = new Thread(() => Contend(hold, rounds));
                started[i].Start();
            }
            for (int i = 0; i < threads; i++)
                started[i].Join();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Contend(int hold, int rounds)
        {
            for (int r = 0; r < rounds; r++)
            {
                lock (Gate)
                {
                    Thread.Sleep(hold);
                }
            }
        }
    }
}
