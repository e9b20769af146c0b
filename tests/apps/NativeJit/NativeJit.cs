// A program whose hot code is made at run time by a native code generator that is not the
// runtime: libsxsjit.so (tests/integration/sxs_jit.c, found through LD_LIBRARY_PATH) writes a loop
// into anonymous executable memory, names it in /tmp/perf-PID.map, and runs it.
//
// Usage: NativeJit <seconds>
//            Calls the generated loop (50 million turns a call) for <seconds> of wall time, then
//            prints "native-jit pid=<pid> calls=<N>".
// Returns 0 when every call returned 0, 1 when one did not (the code could not be generated), and
// 2 (with a usage line on stderr) for bad arguments.
using System;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;

public static class NativeJit
{
    [DllImport("sxsjit")]
    private static extern long sxs_jit_spin(long n);

    public static int Main(string[] args)
    {
        double seconds;
        if (args.Length != 1 || !double.TryParse(args[0], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds))
        {
            Console.Error.WriteLine("usage: NativeJit <seconds>");
            return 2;
        }
        var clock = Stopwatch.StartNew();
        long calls = 0;
        while (clock.Elapsed.TotalSeconds < seconds)
        {
            if (sxs_jit_spin(50000000) != 0)
                return 1;
            calls++;
        }
        Console.WriteLine("native-jit pid=" + Process.GetCurrentProcess().Id + " calls=" + calls);
        return 0;
    }
}
