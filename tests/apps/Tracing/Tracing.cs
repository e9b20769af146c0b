// Makes exact numbers of calls of a few non-inlined methods, so tests can compare a profiler's
// exact call tracing (Enter/Leave/Tailcall hooks) against what the program did.
//
// Usage: Tracing <phase> [args]
//   fib [n]                      recursive Sxs.Tests.Tracing.Fib(int): Fib(n) is called
//                                calls(n) = 2*fib(n+1) - 1 times (21891 for n = 20, the default)
//                                -> "fib n=20 result=6765 calls=21891"
//   loop [count]                 Sxs.Tests.Tracing.Trivial(int) called count times (1000000)
//                                -> "loop calls=1000000"
//   throw [times]                Sxs.Tests.Tracing.Catcher(int) calls Level1 `times` times
//                                (100); Level1 -> ... -> Level5, which throws a
//                                Sxs.Tests.TracingException caught in Catcher; every LevelN
//                                runs exactly `times` times, Catcher once
//                                -> "throw times=100 caught=100"
//   tail [n]                     Sxs.Tests.TailCalls.Countdown(int, long), emitted at run time
//                                with Reflection.Emit, makes genuine IL tail calls
//                                (`tail. call Countdown` + `ret`) down to 0; called once with n
//                                (1000) its body runs n + 1 times
//                                -> "tail n=1000 result=500500 calls=1001"
//                                Without Reflection.Emit it runs a C# twin,
//                                Sxs.Tests.Tracing.Countdown(int, long), whose calls are not
//                                tail-prefixed, and adds " emit=unavailable" to the line.
//                                Note: the JIT turns a recursive tail call into a loop (also
//                                with profiler Enter/Leave hooks), so a profiler then sees one
//                                Enter/Leave of Countdown and no Tailcall, unless the runtime runs
//                                with DOTNET_TailCallLoopOpt=0; `tailpair` needs no such setting.
//   tailpair [n]                 the same sum through two emitted methods that tail-call each
//                                other, Sxs.Tests.TailCalls.Ping(int, long) (if n == 0 return
//                                acc; `tail. call Pong(n, acc)`) and Pong(int, long)
//                                (`tail. call Ping(n - 1, acc + n)`): neither call is recursive,
//                                so both stay genuine tail calls (jmp); Ping runs n + 1 times,
//                                Pong n times (1000 by default); not part of `all`
//                                -> "tailpair n=1000 result=500500 ping=1001 pong=1000"
//   threads [threads] [calls]    `threads` threads (8), started together through a Barrier,
//                                each call Sxs.Tests.Tracing.Shared(int) `calls` times (100000)
//                                -> "threads threads=8 calls-each=100000 total=800000"
//   all                          fib, loop, throw, tail, threads once each, in this order,
//                                with their defaults (not tailpair).
//
// Every counted method is [MethodImpl(NoInlining)]. Each phase also counts what really ran
// and checks it against the expected number: on a mismatch it prints "<phase> FAILED ..." and
// the program returns 1. Bad arguments return 2. The output holds no timings.
using System;
using System.Globalization;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Sxs.Tests
{
    // The only exception type the throw phase uses, so a test can find it by name.
    public sealed class TracingException : Exception
    {
        public TracingException(int round)
            : base("tracing " + round.ToString(CultureInfo.InvariantCulture))
        {
            Round = round;
        }

        public int Round { get; private set; }
    }

    public static class Tracing
    {
        private static long s_fibCalls;
        private static long s_sink;          // keeps the results of Trivial and Shared alive
        private static long s_shared;        // Shared calls, summed over the threads
        private static int[] s_levels = new int[6];
        private static long s_countdownCalls;
        private static long s_countdownReturns;   // makes the twin's call a non-tail call

        public static int Main(string[] args)
        {
            if (args.Length == 0)
                return Usage();
            string phase = args[0];
            if (phase == "all")
            {
                if (args.Length != 1)
                    return Usage();
                bool ok = RunFib(20);
                ok &= RunLoop(1000000);
                ok &= RunThrow(100);
                ok &= RunTail(1000);
                ok &= RunThreads(8, 100000);
                return ok ? 0 : 1;
            }

            int a, b;
            switch (phase)
            {
                case "fib":
                    // Fib(46) is the last that fits an int.
                    if (!Args(args, 1, 20, 0, out a, out b) || a > 46)
                        return Usage();
                    return RunFib(a) ? 0 : 1;
                case "loop":
                    if (!Args(args, 1, 1000000, 0, out a, out b))
                        return Usage();
                    return RunLoop(a) ? 0 : 1;
                case "throw":
                    if (!Args(args, 1, 100, 0, out a, out b))
                        return Usage();
                    return RunThrow(a) ? 0 : 1;
                case "tail":
                    if (!Args(args, 1, 1000, 0, out a, out b))
                        return Usage();
                    return RunTail(a) ? 0 : 1;
                case "tailpair":
                    if (!Args(args, 1, 1000, 0, out a, out b))
                        return Usage();
                    return RunTailPair(a) ? 0 : 1;
                case "threads":
                    if (!Args(args, 2, 8, 100000, out a, out b) || a < 1)
                        return Usage();
                    return RunThreads(a, b) ? 0 : 1;
                default:
                    return Usage();
            }
        }

        private static int Usage()
        {
            Console.Error.WriteLine(
                "usage: Tracing all | fib [n] | loop [count] | throw [times] | tail [n] | " +
                "tailpair [n] | threads [threads] [calls]");
            return 2;
        }

        // Reads up to `max` optional non-negative integers after the phase name.
        private static bool Args(string[] args, int max, int defaultA, int defaultB,
                                 out int a, out int b)
        {
            a = defaultA;
            b = defaultB;
            if (args.Length - 1 > max)
                return false;
            if (args.Length > 1 && !Parse(args[1], out a))
                return false;
            if (args.Length > 2 && !Parse(args[2], out b))
                return false;
            return true;
        }

        private static bool Parse(string text, out int value)
        {
            return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value);
        }

        private static string Str(long value)
        {
            return value.ToString(CultureInfo.InvariantCulture);
        }

        private static bool Report(string line, bool ok, string failure)
        {
            Console.WriteLine(ok ? line : line + " FAILED " + failure);
            return ok;
        }

        // ---- fib ---------------------------------------------------------------------------

        private static bool RunFib(int n)
        {
            s_fibCalls = 0;
            int result = Fib(n);
            // The expected numbers, worked out without calling Fib.
            long expectedResult = 0, expectedCalls = 1;
            long f0 = 0, f1 = 1, c0 = 1, c1 = 1;   // fib(0), fib(1); calls(0), calls(1)
            if (n == 1)
                expectedResult = 1;
            for (int i = 2; i <= n; i++)
            {
                long f2 = f0 + f1, c2 = c0 + c1 + 1;
                f0 = f1; f1 = f2; c0 = c1; c1 = c2;
                expectedResult = f2;
                expectedCalls = c2;
            }
            return Report("fib n=" + Str(n) + " result=" + Str(result) + " calls=" + Str(s_fibCalls),
                          result == expectedResult && s_fibCalls == expectedCalls,
                          "expected result=" + Str(expectedResult) + " calls=" + Str(expectedCalls));
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Fib(int n)
        {
            s_fibCalls++;
            if (n < 2)
                return n;
            return Fib(n - 1) + Fib(n - 2);
        }

        // ---- loop --------------------------------------------------------------------------

        private static bool RunLoop(int count)
        {
            long calls = Loop(count);
            return Report("loop calls=" + Str(calls), calls == count,
                          "expected calls=" + Str(count));
        }

        // Calls Trivial `count` times and returns how many calls it made.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Loop(int count)
        {
            long sum = 0, calls = 0;
            for (int i = 0; i < count; i++)
            {
                sum += Trivial(i);
                calls++;
            }
            s_sink += sum;
            return calls;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Trivial(int x)
        {
            return x + 1;
        }

        // ---- throw -------------------------------------------------------------------------

        private static bool RunThrow(int times)
        {
            Array.Clear(s_levels, 0, s_levels.Length);
            int caught = Catcher(times);
            bool ok = caught == times;
            for (int i = 1; i <= 5; i++)
                ok &= s_levels[i] == times;
            return Report("throw times=" + Str(times) + " caught=" + Str(caught), ok,
                          "levels=" + Str(s_levels[1]) + "," + Str(s_levels[2]) + "," +
                          Str(s_levels[3]) + "," + Str(s_levels[4]) + "," + Str(s_levels[5]));
        }

        // Calls Level1 `times` times, catching the exception Level5 throws each time.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Catcher(int times)
        {
            int caught = 0;
            for (int i = 0; i < times; i++)
            {
                try
                {
                    Level1(i);
                }
                catch (TracingException e)
                {
                    if (e.Round == i)
                        caught++;
                }
            }
            return caught;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Level1(int round)
        {
            s_levels[1]++;
            return Level2(round) + 1;   // "+ 1": no tail call, the frame stays on the stack
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Level2(int round)
        {
            s_levels[2]++;
            return Level3(round) + 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Level3(int round)
        {
            s_levels[3]++;
            return Level4(round) + 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Level4(int round)
        {
            s_levels[4]++;
            return Level5(round) + 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Level5(int round)
        {
            s_levels[5]++;
            throw new TracingException(round);
        }

        // ---- tail, tailpair -----------------------------------------------------------------

        private static bool RunTail(int n)
        {
            long expected = (long)n * (n + 1) / 2;
            Type tailCalls = TailCallsType();
            long result, calls;
            string suffix = "";
            if (tailCalls != null)
            {
                SetCounter(tailCalls, "CountdownCalls", 0);
                result = (long)Method(tailCalls, "Countdown").Invoke(null, new object[] { n, 0L });
                calls = GetCounter(tailCalls, "CountdownCalls");
            }
            else
            {
                s_countdownCalls = 0;
                result = Countdown(n, 0);
                calls = s_countdownCalls;
                suffix = " emit=unavailable";
            }
            return Report("tail n=" + Str(n) + " result=" + Str(result) + " calls=" + Str(calls) + suffix,
                          result == expected && calls == (long)n + 1,
                          "expected result=" + Str(expected) + " calls=" + Str((long)n + 1));
        }

        private static bool RunTailPair(int n)
        {
            long expected = (long)n * (n + 1) / 2;
            Type tailCalls = TailCallsType();
            if (tailCalls == null)
                return Report("tailpair n=" + Str(n) + " emit=unavailable", false, "no Reflection.Emit");
            SetCounter(tailCalls, "PingCalls", 0);
            SetCounter(tailCalls, "PongCalls", 0);
            long result = (long)Method(tailCalls, "Ping").Invoke(null, new object[] { n, 0L });
            long ping = GetCounter(tailCalls, "PingCalls");
            long pong = GetCounter(tailCalls, "PongCalls");
            return Report("tailpair n=" + Str(n) + " result=" + Str(result) + " ping=" + Str(ping) +
                          " pong=" + Str(pong),
                          result == expected && ping == (long)n + 1 && pong == n,
                          "expected result=" + Str(expected) + " ping=" + Str((long)n + 1) +
                          " pong=" + Str(n));
        }

        private static Type s_tailCalls;
        private static bool s_tailCallsTried;

        // The emitted type, made once; null where Reflection.Emit is unavailable.
        private static Type TailCallsType()
        {
            if (!s_tailCallsTried)
            {
                s_tailCallsTried = true;
                try
                {
                    s_tailCalls = EmitTailCalls();
                }
                catch (PlatformNotSupportedException)
                {
                }
                catch (NotSupportedException)
                {
                }
                catch (InvalidOperationException)
                {
                }
            }
            return s_tailCalls;
        }

        private static MethodInfo Method(Type type, string name)
        {
            return type.GetMethod(name, BindingFlags.Public | BindingFlags.Static);
        }

        private static long GetCounter(Type type, string name)
        {
            return (long)type.GetField(name, BindingFlags.Public | BindingFlags.Static).GetValue(null);
        }

        private static void SetCounter(Type type, string name, long value)
        {
            type.GetField(name, BindingFlags.Public | BindingFlags.Static).SetValue(null, value);
        }

        // Builds, in a dynamic assembly, the equivalent of
        //
        //   public static class Sxs.Tests.TailCalls {
        //       public static long CountdownCalls, PingCalls, PongCalls;
        //       public static long Countdown(int n, long acc) {
        //           CountdownCalls++;
        //           if (n == 0) return acc;
        //           return Countdown(n - 1, acc + n);      // as `tail. call` + `ret`
        //       }
        //       public static long Ping(int n, long acc) {
        //           PingCalls++;
        //           if (n == 0) return acc;
        //           return Pong(n, acc);                   // as `tail. call` + `ret`
        //       }
        //       public static long Pong(int n, long acc) {
        //           PongCalls++;
        //           return Ping(n - 1, acc + n);           // as `tail. call` + `ret`
        //       }
        //   }
        //
        // All three are NoInlining. The counters count executions of the bodies, which is the
        // number of calls whether the JIT makes a tail call a jump or (recursive Countdown) a loop.
        private static Type EmitTailCalls()
        {
            var name = new AssemblyName("Sxs.Tests.TailCalls");
            AssemblyBuilder assembly =
                AssemblyBuilder.DefineDynamicAssembly(name, AssemblyBuilderAccess.Run);
            ModuleBuilder module = assembly.DefineDynamicModule("Sxs.Tests.TailCalls");
            TypeBuilder type = module.DefineType("Sxs.Tests.TailCalls",
                TypeAttributes.Public | TypeAttributes.Abstract | TypeAttributes.Sealed |
                TypeAttributes.Class | TypeAttributes.BeforeFieldInit, typeof(object));

            MethodBuilder countdown = DefineCountdownLike(type, "Countdown");
            MethodBuilder ping = DefineCountdownLike(type, "Ping");
            MethodBuilder pong = DefineCountdownLike(type, "Pong");
            FieldBuilder countdownCalls = DefineCounter(type, "CountdownCalls");
            FieldBuilder pingCalls = DefineCounter(type, "PingCalls");
            FieldBuilder pongCalls = DefineCounter(type, "PongCalls");

            // Countdown: if (n == 0) return acc; tail. call Countdown(n - 1, acc + n); ret
            ILGenerator il = countdown.GetILGenerator();
            EmitIncrement(il, countdownCalls);
            EmitReturnAccIfZero(il);
            EmitNextArgs(il);
            il.Emit(OpCodes.Tailcall);
            il.Emit(OpCodes.Call, countdown);
            il.Emit(OpCodes.Ret);

            // Ping: if (n == 0) return acc; tail. call Pong(n, acc); ret
            il = ping.GetILGenerator();
            EmitIncrement(il, pingCalls);
            EmitReturnAccIfZero(il);
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Tailcall);
            il.Emit(OpCodes.Call, pong);
            il.Emit(OpCodes.Ret);

            // Pong: tail. call Ping(n - 1, acc + n); ret
            il = pong.GetILGenerator();
            EmitIncrement(il, pongCalls);
            EmitNextArgs(il);
            il.Emit(OpCodes.Tailcall);
            il.Emit(OpCodes.Call, ping);
            il.Emit(OpCodes.Ret);

            return type.CreateTypeInfo().AsType();
        }

        // public static long <name>(int n, long acc), NoInlining.
        private static MethodBuilder DefineCountdownLike(TypeBuilder type, string name)
        {
            MethodBuilder method = type.DefineMethod(name,
                MethodAttributes.Public | MethodAttributes.Static | MethodAttributes.HideBySig,
                typeof(long), new[] { typeof(int), typeof(long) });
            method.SetImplementationFlags(MethodImplAttributes.IL | MethodImplAttributes.Managed |
                                          MethodImplAttributes.NoInlining);
            method.DefineParameter(1, ParameterAttributes.None, "n");
            method.DefineParameter(2, ParameterAttributes.None, "acc");
            return method;
        }

        private static FieldBuilder DefineCounter(TypeBuilder type, string name)
        {
            return type.DefineField(name, typeof(long), FieldAttributes.Public | FieldAttributes.Static);
        }

        // field++
        private static void EmitIncrement(ILGenerator il, FieldInfo field)
        {
            il.Emit(OpCodes.Ldsfld, field);
            il.Emit(OpCodes.Ldc_I4_1);
            il.Emit(OpCodes.Conv_I8);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Stsfld, field);
        }

        // if (n == 0) return acc;
        private static void EmitReturnAccIfZero(ILGenerator il)
        {
            Label notZero = il.DefineLabel();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Brtrue_S, notZero);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ret);
            il.MarkLabel(notZero);
        }

        // Pushes n - 1, acc + n.
        private static void EmitNextArgs(ILGenerator il)
        {
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldc_I4_1);
            il.Emit(OpCodes.Sub);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Conv_I8);
            il.Emit(OpCodes.Add);
        }

        // The C# twin of the emitted Countdown, for runtimes without Reflection.Emit. Its call
        // is not in tail position, so the JIT makes no tail call (nor a loop) of it.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Countdown(int n, long acc)
        {
            s_countdownCalls++;
            if (n == 0)
                return acc;
            long result = Countdown(n - 1, acc + n);
            s_countdownReturns++;
            return result;
        }

        // ---- threads -----------------------------------------------------------------------

        private static bool RunThreads(int threads, int calls)
        {
            s_shared = 0;
            var barrier = new Barrier(threads);
            var started = new Thread[threads];
            for (int t = 0; t < threads; t++)
            {
                started[t] = new Thread(() =>
                {
                    barrier.SignalAndWait();
                    long made = CallShared(calls);
                    Interlocked.Add(ref s_shared, made);
                });
                started[t].Name = "sxs-tracing-" + Str(t);
                started[t].Start();
            }
            for (int t = 0; t < threads; t++)
                started[t].Join();
            barrier.Dispose();
            long expected = (long)threads * calls;
            long total = Interlocked.Read(ref s_shared);
            return Report("threads threads=" + Str(threads) + " calls-each=" + Str(calls) +
                          " total=" + Str(total), total == expected,
                          "expected total=" + Str(expected));
        }

        // Calls Shared `calls` times and returns how many calls it made.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long CallShared(int calls)
        {
            long sum = 0, made = 0;
            for (int i = 0; i < calls; i++)
            {
                sum += Shared(i);
                made++;
            }
            Interlocked.Add(ref s_sink, sum);
            return made;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Shared(int x)
        {
            return x ^ 0x5a5a;
        }
    }
}
