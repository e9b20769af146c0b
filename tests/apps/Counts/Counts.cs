// Produces exact numbers of exceptions, garbage collections and threads, so tests can compare
// a profiler's counters against what the program did.
//
// Usage: Counts <exceptions> <gcs> <threads> [exitcode]
// Prints "counts exceptions=N gcs=M threads=T" and returns exitcode (default 0).
using System;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Sxs.Tests
{
    // The only exception type this program throws, so a test can find it by name.
    public sealed class CountedException : Exception
    {
        public CountedException(int index)
            : base("counted " + index.ToString(CultureInfo.InvariantCulture))
        {
            Index = index;
        }

        public int Index { get; private set; }
    }

    public static class Counts
    {
        public static int Main(string[] args)
        {
            if (args.Length < 3 || args.Length > 4)
            {
                Console.Error.WriteLine("usage: Counts <exceptions> <gcs> <threads> [exitcode]");
                return 2;
            }
            int exceptions = ParseCount(args[0]);
            int gcs = ParseCount(args[1]);
            int threads = ParseCount(args[2]);
            int exitCode = args.Length == 4 ? ParseCount(args[3]) : 0;
            if (exceptions < 0 || gcs < 0 || threads < 0 || exitCode < 0)
            {
                Console.Error.WriteLine("Counts: arguments must be non-negative integers");
                return 2;
            }

            int caught = Worker.ThrowAndCatch(exceptions);
            int collected = Collect(gcs);
            int joined = Worker.StartAndJoin(threads);

            Console.WriteLine("counts exceptions=" + Str(caught) + " gcs=" + Str(collected) +
                              " threads=" + Str(joined));
            return exitCode;
        }

        // Forces exactly `count` full collections and returns how many it asked for.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Collect(int count)
        {
            int done = 0;
            for (int i = 0; i < count; i++)
            {
                GC.Collect();
                done++;
            }
            return done;
        }

        // Returns -1 for anything but a plain non-negative decimal, without throwing, so the
        // exception count stays exact even for bad input.
        private static int ParseCount(string text)
        {
            int value;
            if (!int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value))
                return -1;
            return value;
        }

        private static string Str(int value)
        {
            return value.ToString(CultureInfo.InvariantCulture);
        }

        public sealed class Worker
        {
            private readonly int index;
            private long result;

            private Worker(int index)
            {
                this.index = index;
            }

            // Throws and catches `count` CountedExceptions; returns how many were caught.
            [MethodImpl(MethodImplOptions.NoInlining)]
            public static int ThrowAndCatch(int count)
            {
                int caught = 0;
                for (int i = 0; i < count; i++)
                {
                    try
                    {
                        Fail(i);
                    }
                    catch (CountedException e)
                    {
                        if (e.Index == i)
                            caught++;
                    }
                }
                return caught;
            }

            [MethodImpl(MethodImplOptions.NoInlining)]
            public static void Fail(int index)
            {
                throw new CountedException(index);
            }

            // Starts `count` threads named sxs-worker-<i>, all running Worker.Run, and joins them.
            [MethodImpl(MethodImplOptions.NoInlining)]
            public static int StartAndJoin(int count)
            {
                var workers = new Worker[count];
                var started = new Thread[count];
                for (int i = 0; i < count; i++)
                {
                    workers[i] = new Worker(i);
                    started[i] = new Thread(workers[i].Run);
                    started[i].Name = "sxs-worker-" + Str(i);
                    started[i].Start();
                }
                int joined = 0;
                for (int i = 0; i < count; i++)
                {
                    started[i].Join();
                    if (workers[i].result == Expected(i))
                        joined++;
                }
                return joined;
            }

            // A little arithmetic so each thread runs managed code of its own before it ends.
            [MethodImpl(MethodImplOptions.NoInlining)]
            public void Run()
            {
                long sum = 0;
                for (int i = 0; i <= 1000 + index; i++)
                    sum += i;
                result = sum;
            }

            private static long Expected(int index)
            {
                long n = 1000 + index;
                return n * (n + 1) / 2;
            }
        }
    }
}
