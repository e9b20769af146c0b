// Makes a profile with many functions: emits a type with <count> static methods (Reflection.Emit),
// calls each once so the JIT compiles every one, prints "started <count>", then computes in a
// loop until a signal ends it (no signal handling of its own), or for <milliseconds>.
//
// Usage: ManyFunctions <count> [milliseconds]      (default: 600000)
using System;
using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;

namespace Sxs.Tests
{
    public static class ManyFunctions
    {
        private static long sink;

        public static int Main(string[] args)
        {
            int count, milliseconds = 600000;
            if (args.Length < 1 || args.Length > 2 ||
                !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out count) ||
                (args.Length == 2 && !int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out milliseconds)))
            {
                Console.Error.WriteLine("usage: ManyFunctions <count> [milliseconds]");
                return 2;
            }
            var assembly = AssemblyBuilder.DefineDynamicAssembly(new AssemblyName("Generated"), AssemblyBuilderAccess.Run);
            ModuleBuilder module = assembly.DefineDynamicModule("Generated");
            TypeBuilder type = module.DefineType("Sxs.Generated.Functions", TypeAttributes.Public | TypeAttributes.Class);
            for (int i = 0; i < count; i++)
            {
                MethodBuilder m = type.DefineMethod("F" + i.ToString(CultureInfo.InvariantCulture),
                    MethodAttributes.Public | MethodAttributes.Static, typeof(long), new[] { typeof(long) });
                ILGenerator il = m.GetILGenerator();
                il.Emit(OpCodes.Ldarg_0);
                il.Emit(OpCodes.Ldc_I8, (long)i);
                il.Emit(OpCodes.Add);
                il.Emit(OpCodes.Ret);
            }
            Type made = type.CreateTypeInfo().AsType();
            var argument = new object[] { 1L };
            foreach (MethodInfo m in made.GetMethods(BindingFlags.Public | BindingFlags.Static))
                sink += (long)m.Invoke(null, argument);
            Console.WriteLine("started " + count.ToString(CultureInfo.InvariantCulture));
            Console.Out.Flush();
            sink += Work(milliseconds);
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Work(int milliseconds)
        {
            var clock = Stopwatch.StartNew();
            long x = 1;
            do
            {
                for (int i = 0; i < 10000; i++)
                    x = x * 6364136223846793005L + 1442695040888963407L;
            } while (clock.ElapsedMilliseconds < milliseconds);
            return x;
        }
    }
}
