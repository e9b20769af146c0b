// A starter that does its work in a child process, as many tools' launchers do (pwsh's, dotnet's
// own): the parent only starts the child and waits for it.
//
// Usage: Starter <seconds>
//            Runs `dotnet <this dll> work <seconds>` as a child (the same host, the same dll), waits
//            for it, prints "starter child=<pid> exit=<code>" and exits with the child's status.
//        Starter work <seconds>
//            Spins in Sxs.Starter.Work.Hot for <seconds> of CPU time, prints "work pid=<pid>
//            spins=<n>", exits 0.
// Exits 2 (with a usage line on stderr) for bad arguments.
using System;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Sxs.Starter
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            double seconds;
            if (args.Length == 2 && args[0] == "work" && Parse(args[1], out seconds))
                return Work.Run(seconds);
            if (args.Length == 1 && Parse(args[0], out seconds))
                return Start(args[0]);
            Console.Error.WriteLine("usage: Starter <seconds> | Starter work <seconds>");
            return 2;
        }

        private static bool Parse(string text, out double seconds)
        {
            return double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out seconds) && seconds > 0;
        }

        private static int Start(string seconds)
        {
            string host = Process.GetCurrentProcess().MainModule.FileName;
            string dll = typeof(Program).Assembly.Location;
            var info = new ProcessStartInfo(host, "\"" + dll + "\" work " + seconds) { UseShellExecute = false };
            using (Process child = Process.Start(info))
            {
                child.WaitForExit();
                Console.WriteLine("starter child=" + child.Id + " exit=" + child.ExitCode);
                return child.ExitCode;
            }
        }
    }

    public static class Work
    {
        public static int Run(double seconds)
        {
            long spins = 0;
            TimeSpan budget = TimeSpan.FromSeconds(seconds);
            Process self = Process.GetCurrentProcess();
            TimeSpan start = self.TotalProcessorTime;
            while (true)
            {
                spins += Hot(200000);
                self.Refresh();
                if (self.TotalProcessorTime - start >= budget)
                    break;
            }
            Console.WriteLine("work pid=" + self.Id + " spins=" + spins);
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Hot(int n)
        {
            long x = 1;
            for (int i = 0; i < n; i++)
                x = x * 6364136223846793005L + 1442695040888963407L;
            return x == 0 ? 0 : 1;
        }
    }
}
