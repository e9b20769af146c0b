// Says which runtime and which framework folder ran it, then exits as asked, so a harness test
// can tell several runtimes in one process apart by their output alone.
//
// Usage: SxsHello [code] [...]      prints two lines, returns code (default 0, also when the
//                                   first argument is not a number)
//        SxsHello exit <code>       prints two lines, then Environment.Exit(code)
//        SxsHello throw             prints two lines, then lets an exception escape Main
//        SxsHello sleep <ms> [code] prints two lines, sleeps, returns code (default 0)
using System;
using System.Globalization;
using System.Threading;

namespace Sxs.Tests
{
    public sealed class SxsHelloException : Exception
    {
        public SxsHelloException(string message) : base(message) { }
    }

    public static class SxsHello
    {
        public static int Main(string[] args)
        {
            Console.WriteLine("hello from " + Environment.Version.ToString() + " args=" + string.Join(",", args));
            // The folder System.Private.CoreLib was loaded from is the framework folder this
            // runtime was started with (a private copy has its own path).
            Console.WriteLine("runtime-marker=" + typeof(object).Assembly.Location);
            Console.Out.Flush();

            if (args.Length == 0)
                return 0;
            switch (args[0])
            {
                case "exit":
                    Environment.Exit(Parse(args, 1, 0));
                    return 99;
                case "throw":
                    Raise();
                    return 99;
                case "sleep":
                    Thread.Sleep(Parse(args, 1, 0));
                    return Parse(args, 2, 0);
                default:
                    int code;
                    return int.TryParse(args[0], NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out code) ? code : 0;
            }
        }

        private static int Parse(string[] args, int index, int fallback)
        {
            if (index >= args.Length)
                return fallback;
            return int.Parse(args[index], NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture);
        }

        // A frame of its own so the unhandled exception's stack shows SxsHello.Raise above Main.
        private static void Raise()
        {
            throw new SxsHelloException("sxs hello unhandled");
        }
    }
}
