// Lets an InvalidOperationException escape Main, so the runtime ends the process as unhandled.
using System;

namespace Sxs.Tests
{
    public static class Throws
    {
        public static int Main(string[] args)
        {
            Console.WriteLine("before throw");
            Console.Out.Flush();
            Raise();
            return 0;
        }

        // A separate frame so a stack of the unhandled exception shows Throws.Raise above Main.
        private static void Raise()
        {
            throw new InvalidOperationException("sxs unhandled");
        }
    }
}
