// The stack-truth corpus: call chains known by construction, one thread per pattern, for measuring
// how many sampled stacks are exactly the chain the program made (tests/integration/test_sxs_truth.c,
// `stack truth` in docs/PERFORMANCE.md).
//
// Every pattern lives in a class of its own in the namespace Truth; each thread spends nearly all of
// its time in a leaf reached through a fixed chain of managed callers, none of them in tail position
// (each caller does something after the call). Before starting, the app prints one line a pattern:
//
//     truth <pattern> <frame> < <frame> < ... < <frame>
//
// the expected managed frames from the leaf-most frame of the pattern's class down to the thread's
// root, as the profile names them (Namespace.Type.Method); a pattern whose thread also spends time
// on another path (throwing) prints one line for each. A sample in a caller's own code (between two
// calls) has the chain's tail from that caller down. Every method of a chain is NoInlining, lambdas
// included: code the JIT inlined has no frame of its own. `...` stands for one or more managed
// frames of the framework (their names differ between versions), and nothing of Truth among them.
// `truth-above <classes>` names the helper classes (arithmetic, the clock: tier-0 code calls them,
// optimized code inlines them) whose frames may sit above a pattern's leaf, and
// `truth-driver <classes>` those of the code that starts and joins the threads (no pattern).
// At the end, `truth-module <lo> <hi> <path>` gives each shared library's executable mapping.
// A pattern the runtime cannot run (UnmanagedCallersOnly before .NET 5) prints
// `truth-skip <pattern> <why>` instead.
//
// Usage: StackTruth <seconds> [cpu|wall]
//        Runs every pattern for <seconds> (a fraction allowed), each on its own thread, Main itself
//        running the OSR-in-Main pattern. `wall` adds the pattern that blocks in a P/Invoke (off the
//        CPU, so seen only by wall-clock sampling). Prints "truth done patterns=<N>" and returns 0.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Linq.Expressions;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace System.Runtime.InteropServices
{
    // Compiled against .NET Core 2.0's API, which predates the attribute: the runtime (5 and later)
    // and the compiler both know it by its name.
    [AttributeUsage(AttributeTargets.Method, Inherited = false)]
    internal sealed class UnmanagedCallersOnlyAttribute : Attribute
    {
    }
}

namespace Truth
{
    // The deadline and the shared sink every leaf writes to, so that no work is optimized away.
    internal static class Clock
    {
        private static readonly Stopwatch Watch = Stopwatch.StartNew();
        internal static long EndTicks;
        internal static long Sink;

        internal static bool Running
        {
            get { return Watch.ElapsedTicks < EndTicks; }
        }

        internal static void SetSeconds(double seconds)
        {
            EndTicks = Watch.ElapsedTicks + (long)(seconds * Stopwatch.Frequency);
        }
    }

    // Integer work without calls: `n` rounds of a multiply-xorshift.
    internal static class Work
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static long Mix(long x, int n)
        {
            for (int i = 0; i < n; i++)
            {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >> 29;
            }
            return x;
        }
    }

    // A worker loop that runs for the whole run (moved to an OSR version) calling A -> B.
    internal static class OsrLoop
    {
        internal const string Chain = "Truth.OsrLoop.B < Truth.OsrLoop.A < Truth.OsrLoop.Run";

        internal static void Run()
        {
            long acc = 0;
            while (Clock.Running)
                acc += A(acc);
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long A(long x)
        {
            long r = B(x);
            return r ^ (x >> 3);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long B(long x)
        {
            return Work.Mix(x, 2000);
        }
    }

    // A hot leaf that is itself moved to an OSR version: each call loops for about 50 ms.
    internal static class OsrLeaf
    {
        internal const string Chain = "Truth.OsrLeaf.Leaf < Truth.OsrLeaf.Mid < Truth.OsrLeaf.Run";

        internal static void Run()
        {
            long acc = 0;
            while (Clock.Running)
                acc += Mid(acc);
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Mid(long x)
        {
            long r = Leaf(x);
            return r + 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            var watch = Stopwatch.StartNew();
            long end = Stopwatch.Frequency / 20;
            while (watch.ElapsedTicks < end)
            {
                for (int i = 0; i < 1000; i++)
                {
                    x = x * 6364136223846793005L + 1442695040888963407L;
                    x ^= x >> 29;
                }
            }
            return x;
        }
    }

    // OSR in Main: Program.Main loops for the whole run calling Work.
    internal static class OsrMain
    {
        internal const string Chain = "Truth.OsrMain.Work < Truth.Program.Main";

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static long Work(long x)
        {
            long r = Truth.Work.Mix(x, 2000);
            return r + 1;
        }
    }

    // Recursion 41 deep, the leaf at the bottom.
    internal static class Recursion
    {
        internal const int Depth = 41;

        internal static string Chain
        {
            get
            {
                var parts = new List<string> { "Truth.Recursion.Leaf" };
                for (int i = 0; i < Depth; i++)
                    parts.Add("Truth.Recursion.Down");
                parts.Add("Truth.Recursion.Run");
                return string.Join(" < ", parts);
            }
        }

        internal static void Run()
        {
            long acc = 0;
            while (Clock.Running)
                acc += Down(Depth, acc);
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Down(int n, long x)
        {
            long r = n == 1 ? Leaf(x) : Down(n - 1, x);
            return r + n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            return Work.Mix(x, 2000);
        }
    }

    internal interface IWorker
    {
        long Do(long x);
    }

    // Shared generic code over reference types (one body for every T that is a class), reached
    // through an interface.
    internal static class SharedGeneric
    {
        internal const string Chain =
            "Truth.SharedGeneric.Leaf < Truth.SharedGeneric.Worker`1.Do < Truth.SharedGeneric.Run";

        internal sealed class Worker<T> : IWorker where T : class
        {
            private readonly T _tag;

            internal Worker(T tag)
            {
                _tag = tag;
            }

            [MethodImpl(MethodImplOptions.NoInlining)]
            public long Do(long x)
            {
                long r = Leaf(x);
                return _tag == null ? r : r + 1;
            }
        }

        internal static void Run()
        {
            IWorker w = new Worker<string>("s");
            IWorker other = new Worker<object>(new object());
            long acc = other.Do(1);
            while (Clock.Running)
                acc += w.Do(acc);
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static long Leaf(long x)
        {
            return Work.Mix(x, 2000);
        }
    }

    // A generic virtual method.
    internal static class GenericVirtual
    {
        internal const string Chain =
            "Truth.GenericVirtual.Leaf < Truth.GenericVirtual.Derived.Go < Truth.GenericVirtual.Run";

        internal abstract class Base
        {
            public abstract long Go<T>(long x, T tag);
        }

        internal sealed class Derived : Base
        {
            [MethodImpl(MethodImplOptions.NoInlining)]
            public override long Go<T>(long x, T tag)
            {
                long r = Leaf(x);
                return tag == null ? r : r + 1;
            }
        }

        internal static void Run()
        {
            Base b = new Derived();
            long acc = b.Go(1, 2);
            while (Clock.Running)
                acc += b.Go(acc, "s");
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            return Work.Mix(x, 2000);
        }
    }

    // A generic method instantiated over a struct (code of its own for that struct).
    internal static class StructGeneric
    {
        internal const string Chain =
            "Truth.StructGeneric.Leaf < Truth.StructGeneric.Apply < Truth.StructGeneric.Run";

        internal struct Pair
        {
            public long A;
            public long B;
        }

        internal static void Run()
        {
            long acc = 0;
            var p = new Pair { A = 1, B = 2 };
            while (Clock.Running)
            {
                p.A = acc;
                acc += Apply(p);
            }
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Apply<T>(T value) where T : struct
        {
            long r = Leaf(value.GetHashCode());
            return r + 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            return Work.Mix(x, 2000);
        }
    }

    internal sealed class TruthException : Exception
    {
        internal TruthException() : base("truth")
        {
        }
    }

    // Work in a catch handler: each throw is followed by about 5 ms of work in the handler.
    internal static class InCatch
    {
        internal const string Chain = "Truth.InCatch.Leaf < Truth.InCatch.Handle < Truth.InCatch.Run\n" +
                                      "Truth.InCatch.Throw < Truth.InCatch.Handle < Truth.InCatch.Run";

        internal static void Run()
        {
            long acc = 0;
            while (Clock.Running)
                acc += Handle(acc);
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Handle(long x)
        {
            long r = 0;
            try
            {
                Throw();
            }
            catch (TruthException)
            {
                r = Leaf(x);
            }
            return r + 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Throw()
        {
            throw new TruthException();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            for (int i = 0; i < 50; i++)
                x = Work.Mix(x, 2000);
            return x;
        }
    }

    // Work in a finally handler run by an exception's unwinding.
    internal static class InFinally
    {
        internal const string Chain = "Truth.InFinally.Leaf < Truth.InFinally.Handle < Truth.InFinally.Run\n" +
                                      "Truth.InFinally.Throw < Truth.InFinally.Handle < Truth.InFinally.Run";

        internal static void Run()
        {
            long acc = 0;
            while (Clock.Running)
            {
                try
                {
                    acc += Handle(acc);
                }
                catch (TruthException)
                {
                    acc++;
                }
            }
            Clock.Sink += acc;
        }

        internal static long Last;

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Handle(long x)
        {
            try
            {
                Throw();
            }
            finally
            {
                Last = Leaf(x);
            }
            return x;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Throw()
        {
            throw new TruthException();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            for (int i = 0; i < 50; i++)
                x = Work.Mix(x, 2000);
            return x;
        }
    }

    // Work in an exception filter (run in the first pass, before any unwinding).
    internal static class InFilter
    {
        internal const string Chain =
            "Truth.InFilter.Leaf < Truth.InFilter.Check < Truth.InFilter.Handle < Truth.InFilter.Run\n" +
            "Truth.InFilter.Throw < Truth.InFilter.Handle < Truth.InFilter.Run";

        internal static void Run()
        {
            long acc = 0;
            while (Clock.Running)
                acc += Handle(acc);
            Clock.Sink += acc;
        }

        private static long _last;

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Handle(long x)
        {
            try
            {
                Throw();
            }
            catch (TruthException) when (Check(x))
            {
                return _last;
            }
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static bool Check(long x)
        {
            _last = Leaf(x);
            return _last != 0 || x == 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Throw()
        {
            throw new TruthException();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            for (int i = 0; i < 50; i++)
                x = Work.Mix(x, 2000);
            return x | 1;
        }
    }

    // Managed -> libc qsort -> managed comparison, through a delegate: libc calls the runtime's reverse P/Invoke
    // stub (an IL stub, a dynamic method of the runtime's: the `...`), which calls Compare.
    internal static class QsortDelegate
    {
        internal const string Chain =
            "Truth.QsortDelegate.Leaf < Truth.QsortDelegate.Compare < ... < Truth.QsortDelegate.Sort < Truth.QsortDelegate.Run";

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        private delegate int Comparison(IntPtr a, IntPtr b);

        [DllImport("libc", EntryPoint = "qsort")]
        private static extern void qsort(IntPtr array, UIntPtr count, UIntPtr size, IntPtr compare);

        private static readonly Comparison Keep = Compare;

        internal static void Run()
        {
            IntPtr fn = Marshal.GetFunctionPointerForDelegate(Keep);
            IntPtr array = Marshal.AllocHGlobal(64 * 8);
            long acc = 0;
            while (Clock.Running)
                acc += Sort(array, fn);
            Marshal.FreeHGlobal(array);
            Clock.Sink += acc;
            GC.KeepAlive(Keep);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Sort(IntPtr array, IntPtr fn)
        {
            for (int i = 0; i < 64; i++)
                Marshal.WriteInt64(array, i * 8, (i * 7919) % 64);
            qsort(array, (UIntPtr)64, (UIntPtr)8, fn);
            return Marshal.ReadInt64(array);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static int Compare(IntPtr a, IntPtr b)
        {
            long x = Marshal.ReadInt64(a), y = Marshal.ReadInt64(b);
            long r = Leaf(x);
            Clock.Sink ^= r;
            return x.CompareTo(y);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            return Work.Mix(x, 2000);
        }
    }

    // Managed -> libc qsort -> managed comparison, an UnmanagedCallersOnly method (.NET 5 and later).
    internal static unsafe class QsortUnmanaged
    {
        internal const string Chain =
            "Truth.QsortUnmanaged.Leaf < Truth.QsortUnmanaged.Compare < Truth.QsortUnmanaged.Sort < Truth.QsortUnmanaged.Run";

        [DllImport("libc", EntryPoint = "qsort")]
        private static extern void qsort(long* array, UIntPtr count, UIntPtr size, IntPtr compare);

        // The compiler needs the attribute from the framework to take &Compare; the runtime gives
        // the same native entry point through the method's handle.
        private static readonly IntPtr Entry = typeof(QsortUnmanaged)
            .GetMethod("Compare", BindingFlags.Static | BindingFlags.NonPublic).MethodHandle.GetFunctionPointer();

        internal static void Run()
        {
            var array = new long[64];
            long acc = 0;
            while (Clock.Running)
                acc += Sort(array);
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Sort(long[] array)
        {
            for (int i = 0; i < array.Length; i++)
                array[i] = (i * 7919) % 64;
            fixed (long* p = array)
                qsort(p, (UIntPtr)array.Length, (UIntPtr)8, Entry);
            return array[0];
        }

        [UnmanagedCallersOnly]
        private static int Compare(long* a, long* b)
        {
            long r = Leaf(*a);
            Clock.Sink ^= r;
            return (*a).CompareTo(*b);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            return Work.Mix(x, 2000);
        }
    }

    // A P/Invoke that blocks (off the CPU: seen by wall-clock sampling only).
    internal static class Blocking
    {
        internal const string Chain = "Truth.Blocking.Nap < Truth.Blocking.Run";

        [DllImport("libc")]
        private static extern int usleep(uint usec);

        internal static void Run()
        {
            long acc = 0;
            while (Clock.Running)
                acc += Nap();
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static int Nap()
        {
            int r = usleep(20000);
            return r + 1;
        }
    }

    // A delegate to a lambda that calls a closure over a local.
    internal static class Closures
    {
        internal const string Chain =
            "Truth.Closures.Leaf < Truth.Closures.<>c__DisplayClass1_0.<Run>b__0 < Truth.Closures.<>c.<Run>b__1_1 < Truth.Closures.Run";

        internal static void Run()
        {
            long acc = 0;
            long bias = 3;
            Func<long, long> inner = [MethodImpl(MethodImplOptions.NoInlining)] (long x) =>
            {
                long r = Leaf(x);
                return r + bias;
            };
            Func<Func<long, long>, long, long> outer = [MethodImpl(MethodImplOptions.NoInlining)] (Func<long, long> f, long x) =>
            {
                long r = f(x);
                return r ^ 1;
            };
            while (Clock.Running)
            {
                acc += outer(inner, acc);
                bias++;
            }
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            return Work.Mix(x, 2000);
        }
    }

    // A compiled expression tree calling user code.
    internal static class ExpressionTree
    {
        internal const string Chain = "Truth.ExpressionTree.Leaf < ... < Truth.ExpressionTree.Run";

        internal static void Run()
        {
            var x = Expression.Parameter(typeof(long), "x");
            var call = Expression.Call(typeof(ExpressionTree).GetMethod("Leaf", BindingFlags.Static | BindingFlags.Public), x);
            var body = Expression.Add(call, Expression.Constant(1L));
            var fn = Expression.Lambda<Func<long, long>>(body, x).Compile();
            long acc = 0;
            while (Clock.Running)
                acc += fn(acc);
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Leaf(long x)
        {
            return Work.Mix(x, 2000);
        }
    }

    // A DynamicMethod (emitted IL) calling user code.
    internal static class Dynamic
    {
        internal const string Chain = "Truth.Dynamic.Leaf < ... < Truth.Dynamic.Run";

        internal static void Run()
        {
            var dm = new DynamicMethod("TruthDynamic", typeof(long), new[] { typeof(long) }, typeof(Dynamic).Module);
            var il = dm.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Call, typeof(Dynamic).GetMethod("Leaf", BindingFlags.Static | BindingFlags.Public));
            il.Emit(OpCodes.Ldc_I8, 1L);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Ret);
            var fn = (Func<long, long>)dm.CreateDelegate(typeof(Func<long, long>));
            long acc = 0;
            while (Clock.Running)
                acc += fn(acc);
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Leaf(long x)
        {
            return Work.Mix(x, 2000);
        }
    }

    // Framework code calling user code: List.Sort with a comparer.
    internal static class ListSort
    {
        internal const string Chain = "Truth.ListSort.Leaf < Truth.ListSort.ByValue.Compare < ... < Truth.ListSort.Run";

        internal sealed class ByValue : IComparer<long>
        {
            [MethodImpl(MethodImplOptions.NoInlining)]
            public int Compare(long a, long b)
            {
                long r = Leaf(a);
                Clock.Sink ^= r;
                return a.CompareTo(b);
            }
        }

        internal static void Run()
        {
            var list = new List<long>();
            var cmp = new ByValue();
            long acc = 0;
            while (Clock.Running)
            {
                list.Clear();
                for (int i = 0; i < 64; i++)
                    list.Add((i * 7919) % 64);
                list.Sort(cmp);
                acc += list[0];
            }
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            return Work.Mix(x, 2000);
        }
    }

    // Framework code calling user code: a LINQ query.
    internal static class Linq
    {
        internal const string Chain = "Truth.Linq.Leaf < Truth.Linq.<>c.<Run>b__1_1 < ... < Truth.Linq.Run";

        internal static void Run()
        {
            var items = Enumerable.Range(0, 64).Select(i => (long)i).ToArray();
            long acc = 0;
            while (Clock.Running)
                acc += items.Select([MethodImpl(MethodImplOptions.NoInlining)] (long x) => Leaf(x)).Sum();
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            return Work.Mix(x, 2000) & 0xffff;
        }
    }

    // Short calls, many of them: the callees start at tier 0 and are promoted to tier 1 during the run.
    internal static class Tiering
    {
        internal const string Chain = "Truth.Tiering.Leaf < Truth.Tiering.Step < Truth.Tiering.Run";

        internal static void Run()
        {
            long acc = 0;
            while (Clock.Running)
            {
                for (int i = 0; i < 100; i++)
                    acc += Step(acc);
            }
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Step(long x)
        {
            long r = Leaf(x);
            return r - 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= x >> 29;
            x = x * 6364136223846793005L + 1442695040888963407L;
            return x ^ (x >> 31);
        }
    }

    // ReadyToRun code: the framework's precompiled Array.Sort, called from user code.
    internal static class ReadyToRun
    {
        internal const string Chain = "Truth.ReadyToRun.Sort < Truth.ReadyToRun.Run";

        internal static void Run()
        {
            var array = new long[4096];
            long acc = 0;
            while (Clock.Running)
                acc += Sort(array, acc);
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Sort(long[] array, long seed)
        {
            for (int i = 0; i < array.Length; i++)
                array[i] = (i * 7919 + seed) % 4096;
            Array.Sort(array);
            return array[1];
        }
    }

    // A method whose frame holds a stackalloc'd buffer (its frame size known only at run time).
    internal static unsafe class StackAlloc
    {
        internal const string Chain = "Truth.StackAlloc.Leaf < Truth.StackAlloc.Buffer < Truth.StackAlloc.Run";

        internal static void Run()
        {
            long acc = 0;
            while (Clock.Running)
                acc += Buffer((int)(acc & 63) + 16);
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Buffer(int n)
        {
            long* p = stackalloc long[n];
            for (int i = 0; i < n; i++)
                p[i] = i;
            long r = Leaf(p, n);
            return r + p[n - 1];
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long* p, int n)
        {
            return Work.Mix(p[0] + n, 2000);
        }
    }

    // A thread-pool work item.
    internal static class PoolItem
    {
        internal const string Chain =
            "Truth.PoolItem.Leaf < Truth.PoolItem.Work < Truth.PoolItem.<>c__DisplayClass1_0.<Start>b__0 < ...";

        internal static void Start(ManualResetEvent done)
        {
            ThreadPool.QueueUserWorkItem([MethodImpl(MethodImplOptions.NoInlining)] (object state) =>
            {
                Work();
                done.Set();
            });
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Work()
        {
            long acc = 0;
            while (Clock.Running)
                acc += Leaf(acc);
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            return Truth.Work.Mix(x, 2000);
        }
    }

    // An async method's MoveNext after an await (on a thread-pool thread).
    internal static class AsyncAwait
    {
        // After its first await, MoveNext runs from the pool (the pattern's chain); before it, from
        // Body's call to the builder's Start, on the task's thread (Task.Delay's timer started there).
        internal const string Chain = "Truth.AsyncAwait.Leaf < Truth.AsyncAwait.<Body>d__2.MoveNext < ...\n" +
            "Truth.AsyncAwait.<Body>d__2.MoveNext < ... < Truth.AsyncAwait.Body < Truth.AsyncAwait.<>c.<Start>b__1_0 < ...";

        internal static Task Start()
        {
            return Task.Run(() => Body());
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static async Task Body()
        {
            await Task.Delay(1);
            long acc = 0;
            while (Clock.Running)
                acc += Leaf(acc);
            Clock.Sink += acc;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Leaf(long x)
        {
            return Work.Mix(x, 2000);
        }
    }

    internal static class Program
    {
        private static void Print(string pattern, string chain)
        {
            Line("truth " + pattern + " " + chain);
        }

        // One line of the manifest in one write() to the standard output: two runtimes of one process
        // (runsxs) print theirs at once, and Console.WriteLine writes a line longer than its buffer
        // (recursion's is some 1,100 characters) in pieces, between which the other runtime's lines
        // came (a line of osr-loop's frames read as recursion's chain). A pipe takes a write of up to
        // 4,096 bytes whole.
        private static System.IO.Stream _stdout;

        internal static void Line(string line)
        {
            Console.Out.Flush();
            if (_stdout == null)
                _stdout = Console.OpenStandardOutput();
            var bytes = System.Text.Encoding.UTF8.GetBytes(line + "\n");
            _stdout.Write(bytes, 0, bytes.Length);
            _stdout.Flush();
        }

        public static int Main(string[] args)
        {
            var threads = Driver.Start(args);
            if (threads == null)
                return 2;
            long acc = 0;
            while (Clock.Running)
                acc += OsrMain.Work(acc);
            Clock.Sink += acc;
            return Driver.Finish(threads);
        }
    }

    // Starts the patterns and waits for them; kept out of Program.Main so that Main's own samples
    // are those of its loop.
    internal static class Driver
    {
        private static ManualResetEvent _poolDone;
        private static Task _async;

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static List<Thread> Start(string[] args)
        {
            double seconds;
            if (args.Length < 1 || args.Length > 2 ||
                !double.TryParse(args[0], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds) ||
                (args.Length == 2 && args[1] != "cpu" && args[1] != "wall"))
            {
                Console.Error.WriteLine("usage: StackTruth <seconds> [cpu|wall]");
                return null;
            }
            bool wall = args.Length == 2 && args[1] == "wall";
            bool uco = Environment.Version.Major >= 5;
            var patterns = new List<KeyValuePair<string, ThreadStart>>
            {
                P("osr-loop", OsrLoop.Run), P("osr-leaf", OsrLeaf.Run), P("recursion", Recursion.Run),
                P("shared-generic", SharedGeneric.Run), P("generic-virtual", GenericVirtual.Run),
                P("struct-generic", StructGeneric.Run), P("catch", InCatch.Run), P("finally", InFinally.Run),
                P("filter", InFilter.Run), P("qsort-delegate", QsortDelegate.Run), P("closures", Closures.Run),
                P("expression-tree", ExpressionTree.Run), P("dynamic-method", Dynamic.Run),
                P("list-sort", ListSort.Run), P("linq", Linq.Run), P("tiering", Tiering.Run),
                P("ready-to-run", ReadyToRun.Run), P("stackalloc", StackAlloc.Run),
            };
            if (uco)
                patterns.Add(P("qsort-unmanaged", QsortUnmanaged.Run));
            if (wall)
                patterns.Add(P("blocking-pinvoke", Blocking.Run));

            var chains = new Dictionary<string, string>
            {
                {"osr-loop", OsrLoop.Chain}, {"osr-leaf", OsrLeaf.Chain}, {"osr-main", OsrMain.Chain},
                {"recursion", Recursion.Chain}, {"shared-generic", SharedGeneric.Chain},
                {"generic-virtual", GenericVirtual.Chain}, {"struct-generic", StructGeneric.Chain},
                {"catch", InCatch.Chain}, {"finally", InFinally.Chain}, {"filter", InFilter.Chain},
                {"qsort-delegate", QsortDelegate.Chain}, {"qsort-unmanaged", QsortUnmanaged.Chain},
                {"blocking-pinvoke", Blocking.Chain}, {"closures", Closures.Chain},
                {"expression-tree", ExpressionTree.Chain}, {"dynamic-method", Dynamic.Chain},
                {"list-sort", ListSort.Chain}, {"linq", Linq.Chain}, {"tiering", Tiering.Chain},
                {"ready-to-run", ReadyToRun.Chain}, {"stackalloc", StackAlloc.Chain},
                {"pool-item", PoolItem.Chain}, {"async-await", AsyncAwait.Chain},
            };
            var names = patterns.Select(p => p.Key).ToList();
            names.AddRange(new[] { "osr-main", "pool-item", "async-await" });
            foreach (var name in names)
            {
                foreach (var chain in chains[name].Split('\n'))
                    Program.Line("truth " + name + " " + chain);
            }
            Program.Line("truth-above Truth.Work Truth.Clock Truth.TruthException");
            Program.Line("truth-driver Truth.Driver");
            if (!uco)
                Program.Line("truth-skip qsort-unmanaged UnmanagedCallersOnly needs .NET 5 or later");
            if (!wall)
                Program.Line("truth-skip blocking-pinvoke off the CPU: measured in wall mode");
            Console.Out.Flush();

            Clock.SetSeconds(seconds);
            var threads = new List<Thread>();
            foreach (var p in patterns)
            {
                var t = new Thread(p.Value) { Name = p.Key, IsBackground = true };
                t.Start();
                threads.Add(t);
            }
            _poolDone = new ManualResetEvent(false);
            PoolItem.Start(_poolDone);
            _async = AsyncAwait.Start();
            return threads;
        }

        private static KeyValuePair<string, ThreadStart> P(string name, ThreadStart run)
        {
            return new KeyValuePair<string, ThreadStart>(name, run);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static int Finish(List<Thread> threads)
        {
            foreach (var t in threads)
                t.Join();
            _poolDone.WaitOne();
            _async.Wait();
            PrintModules();
            Program.Line("truth done patterns=" + (threads.Count + 3) + " sink=" + (Clock.Sink & 1));
            return 0;
        }

        // `truth-module <lo> <hi> <path>` for each executable mapping of a shared library (hex
        // addresses): no sampled frame there may be left unnamed.
        private static void PrintModules()
        {
            foreach (var line in System.IO.File.ReadAllLines("/proc/self/maps"))
            {
                var f = line.Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
                if (f.Length < 6 || f[1] != "r-xp" || !f[5].StartsWith("/") || !f[5].Contains(".so"))
                    continue;
                var range = f[0].Split('-');
                Program.Line("truth-module " + range[0] + " " + range[1] + " " + f[5]);
            }
        }
    }
}
