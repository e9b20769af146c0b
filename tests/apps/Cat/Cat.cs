// Copies standard input to standard output one line at a time until end of input, byte for
// byte: line ends, a last line without one, and bytes that are not UTF-8 all pass unchanged.
//
// Usage: Cat          (no arguments; exits 0)
using System;
using System.IO;
using System.Runtime.CompilerServices;

namespace Sxs.Tests
{
    public static class Cat
    {
        private static readonly byte[] buffer = new byte[4096];
        private static int start;
        private static int end;

        public static int Main(string[] args)
        {
            if (args.Length != 0)
            {
                Console.Error.WriteLine("usage: Cat");
                return 2;
            }
            using (Stream input = Console.OpenStandardInput())
            using (Stream output = Console.OpenStandardOutput())
            {
                while (CopyLine(input, output))
                {
                }
            }
            return 0;
        }

        // Copies one line, its '\n' included, and flushes it, so a reader at the other end of a
        // pipe sees each line as soon as it is complete. Returns false at end of input when
        // nothing was left to copy. Bytes are not decoded, so nothing can be changed on the way.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool CopyLine(Stream input, Stream output)
        {
            bool copied = false;
            for (;;)
            {
                if (start == end)
                {
                    start = 0;
                    end = input.Read(buffer, 0, buffer.Length);
                    if (end <= 0)
                    {
                        end = 0;
                        if (copied)
                            output.Flush();
                        return copied;
                    }
                }
                int newline = Array.IndexOf(buffer, (byte)'\n', start, end - start);
                int stop = newline < 0 ? end : newline + 1;
                output.Write(buffer, start, stop - start);
                start = stop;
                copied = true;
                if (newline >= 0)
                {
                    output.Flush();
                    return true;
                }
            }
        }
    }
}
