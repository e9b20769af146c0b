// Exits with a chosen code, either by returning it from Main or through Environment.Exit.
//
// Usage: ExitCode <code> [exit]
using System;

namespace Sxs.Tests
{
    public static class ExitCode
    {
        public static int Main(string[] args)
        {
            if (args.Length < 1 || args.Length > 2)
            {
                Console.Error.WriteLine("usage: ExitCode <code> [exit]");
                return 2;
            }
            int code = int.Parse(args[0], System.Globalization.CultureInfo.InvariantCulture);
            Console.WriteLine("exiting with " + code.ToString(System.Globalization.CultureInfo.InvariantCulture));
            if (args.Length == 2)
            {
                if (args[1] != "exit")
                {
                    Console.Error.WriteLine("usage: ExitCode <code> [exit]");
                    return 2;
                }
                Console.Out.Flush();
                Environment.Exit(code);
            }
            return code;
        }
    }
}
