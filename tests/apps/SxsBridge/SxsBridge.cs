// Calls across runtimes of one process through libsxsbridge.so, so that stacks interleave:
// managed (runtime A) -> native bridge -> managed (runtime B) -> native bridge -> managed (A) ...
// Every runtime taking part must run this same assembly (the bridge binds it by simple name).
//
// Usage: SxsBridge                               prints "bridge ready", returns 0
//        SxsBridge twice <runtime> <x>           prints Twice(x) computed in runtime <runtime>
//        SxsBridge count <runtime> <n>           calls Count n times in <runtime>, prints the last value
//        SxsBridge pingpong <self> <other> <depth>
//                                                A calls B calls A ... depth calls deep; every level
//                                                prints one "ping" line, the result is depth + 1
//        SxsBridge missing <runtime>             calls a method that does not exist, prints the result
// Returns 0 when every value is as expected, 1 otherwise.
using System;
using System.Globalization;
using System.IO;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Sxs.Tests
{
    public static class SxsBridge
    {
        private const string TypeName = "Sxs.Tests.SxsBridge";

        // Per-runtime state: each runtime has its own copy of this static field.
        private static int calls;

        [DllImport("sxsbridge", CallingConvention = CallingConvention.Cdecl)]
        private static extern int sxs_bridge_call(int runtimeIndex, string assemblyPath, string typeName,
                                                  string methodName, int arg);

        [DllImport("sxsbridge", CallingConvention = CallingConvention.Cdecl)]
        private static extern int sxs_bridge_wait(int runtimeIndex, int timeoutMs);

        public static int Main(string[] args)
        {
            if (args.Length == 0)
            {
                Console.WriteLine("bridge ready");
                return 0;
            }
            switch (args[0])
            {
                case "twice":
                    {
                        int target = Parse(args[1]);
                        int x = Parse(args[2]);
                        Await(target);
                        int result = sxs_bridge_call(target, AssemblyPath, TypeName, "Twice", x);
                        Console.WriteLine("bridge twice(" + Str(x) + ") in runtime " + Str(target) + " = " + Str(result));
                        return result == 2 * x ? 0 : 1;
                    }
                case "count":
                    {
                        int target = Parse(args[1]);
                        int n = Parse(args[2]);
                        Await(target);
                        int last = 0;
                        for (int i = 0; i < n; i++)
                            last = sxs_bridge_call(target, AssemblyPath, TypeName, "Count", 1);
                        Console.WriteLine("bridge count in runtime " + Str(target) + " = " + Str(last) +
                                          ", here = " + Str(calls));
                        return last >= n ? 0 : 1;
                    }
                case "pingpong":
                    {
                        int self = Parse(args[1]);
                        int other = Parse(args[2]);
                        int depth = Parse(args[3]);
                        Await(other);
                        int result = Ping(Pack(depth, self, other));
                        Console.WriteLine("pingpong depth=" + Str(depth) + " result=" + Str(result));
                        return result == depth + 1 ? 0 : 1;
                    }
                case "missing":
                    {
                        int target = Parse(args[1]);
                        Await(target);
                        int result = sxs_bridge_call(target, AssemblyPath, TypeName, "NoSuchMethod", 1);
                        Console.WriteLine("bridge missing = " + Str(result));
                        return result == int.MinValue ? 0 : 1;
                    }
                default:
                    Console.Error.WriteLine("SxsBridge: unknown command " + args[0]);
                    return 2;
            }
        }

        public static int Twice(int x)
        {
            return 2 * x;
        }

        // Returns how often Count was called in this runtime, including this call.
        public static int Count(int increment)
        {
            return System.Threading.Interlocked.Add(ref calls, increment);
        }

        // One level of the ping-pong: `packed` holds the remaining depth (bits 8 and up), the index
        // of the runtime this level runs in (bits 4-7) and the index of the other one (bits 0-3).
        // Prints where it runs, then calls the other runtime with one level less.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Ping(int packed)
        {
            int depth = packed >> 8;
            int self = (packed >> 4) & 0xF;
            int other = packed & 0xF;
            Console.WriteLine("ping depth=" + Str(depth) + " runtime=" + Str(self) + " corelib=" +
                              Path.GetDirectoryName(typeof(object).Assembly.Location));
            if (depth == 0)
                return 1;
            int inner = sxs_bridge_call(other, AssemblyPath, TypeName, "Ping", Pack(depth - 1, other, self));
            return inner < 0 ? inner : inner + 1;
        }

        private static int Pack(int depth, int self, int other)
        {
            return (depth << 8) | ((self & 0xF) << 4) | (other & 0xF);
        }

        private static void Await(int runtime)
        {
            if (sxs_bridge_wait(runtime, 30000) != 0)
                Console.Error.WriteLine("SxsBridge: runtime " + Str(runtime) + " did not start");
        }

        private static string AssemblyPath
        {
            get { return typeof(SxsBridge).Assembly.Location; }
        }

        private static int Parse(string text)
        {
            return int.Parse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture);
        }

        private static string Str(int value)
        {
            return value.ToString(CultureInfo.InvariantCulture);
        }
    }
}
