// A small, deterministic workload for demonstrations: a prime sieve, word frequencies over
// generated text and a generic quicksort, about half a second of managed work in all.
//
// Usage: Demo [rounds]        (default 14; each round repeats the three tasks)
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text;

namespace Sxs.Demo
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            int rounds = 14;
            if (args.Length > 0 &&
                (!int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out rounds) || rounds < 1))
            {
                Console.Error.WriteLine("usage: Demo [rounds]");
                return 2;
            }

            int primeCount = 0, lastPrime = 0;
            Text.Frequency top = new Text.Frequency("", 0);
            int totalWords = 0, distinctWords = 0;
            long checksum = 0;
            bool sorted = true;
            const int sortSize = 200000;

            for (int round = 0; round < rounds; round++)
            {
                bool[] composite = Primes.Sieve(2000000);
                primeCount = Primes.Count(composite, out lastPrime);

                string text = Text.Generate(60000, 12345);
                List<Text.Frequency> frequencies = Text.WordFrequencies(text, out totalWords);
                distinctWords = frequencies.Count;
                top = frequencies[0];

                var rng = new Lcg(777);
                int[] numbers = new int[sortSize];
                for (int i = 0; i < numbers.Length; i++)
                    numbers[i] = rng.Next(1000000);
                Sorting.QuickSort(numbers, (a, b) => a.CompareTo(b));
                sorted = Sorting.IsSorted(numbers, (a, b) => a.CompareTo(b));
                checksum = 0;
                for (int i = 0; i < numbers.Length; i += 1000)
                    checksum = (checksum * 31 + numbers[i]) % 1000000007;
            }

            Console.WriteLine("primes below 2000000: " + Str(primeCount) + ", largest " + Str(lastPrime));
            Console.WriteLine("words: " + Str(totalWords) + " total, " + Str(distinctWords) +
                              " distinct, most frequent \"" + top.Word + "\" x" + Str(top.Count));
            Console.WriteLine("sorted " + Str(sortSize) + " numbers: " + (sorted ? "ok" : "WRONG") +
                              ", checksum " + checksum.ToString(CultureInfo.InvariantCulture));
            return sorted ? 0 : 1;
        }

        internal static string Str(int value)
        {
            return value.ToString(CultureInfo.InvariantCulture);
        }
    }

    // A linear congruential generator: the same numbers on every runtime version.
    public sealed class Lcg
    {
        private uint state;

        public Lcg(uint seed)
        {
            state = seed;
        }

        public int Next(int bound)
        {
            state = state * 1664525u + 1013904223u;
            return (int)((state >> 8) % (uint)bound);
        }
    }

    public static class Primes
    {
        // Sieve of Eratosthenes: composite[i] is true for every non-prime i below limit.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool[] Sieve(int limit)
        {
            var composite = new bool[limit];
            composite[0] = true;
            composite[1] = true;
            for (long i = 2; i * i < limit; i++)
            {
                if (composite[i])
                    continue;
                for (long j = i * i; j < limit; j += i)
                    composite[j] = true;
            }
            return composite;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Count(bool[] composite, out int last)
        {
            int count = 0;
            last = 0;
            for (int i = 0; i < composite.Length; i++)
            {
                if (!composite[i])
                {
                    count++;
                    last = i;
                }
            }
            return count;
        }
    }

    public static class Text
    {
        private static readonly string[] Syllables =
        {
            "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qu", "el",
        };

        // A word and how often it occurs; nested so its name shows up as Text+Frequency.
        public struct Frequency
        {
            public readonly string Word;
            public readonly int Count;

            public Frequency(string word, int count)
            {
                Word = word;
                Count = count;
            }
        }

        // Builds `words` pseudo-words of one to three syllables, separated by spaces and
        // the odd punctuation mark.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Generate(int words, uint seed)
        {
            var rng = new Lcg(seed);
            var sb = new StringBuilder(words * 6);
            for (int w = 0; w < words; w++)
            {
                int syllables = 1 + rng.Next(3);
                for (int s = 0; s < syllables; s++)
                    sb.Append(Syllables[rng.Next(Syllables.Length)]);
                int p = rng.Next(20);
                sb.Append(p == 0 ? ". " : p == 1 ? ", " : " ");
            }
            return sb.ToString();
        }

        // Counts each word of `text` and returns them most frequent first, ties in ordinal order.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static List<Frequency> WordFrequencies(string text, out int total)
        {
            var counts = new Dictionary<string, int>(StringComparer.Ordinal);
            total = 0;
            int start = -1;
            for (int i = 0; i <= text.Length; i++)
            {
                bool letter = i < text.Length && char.IsLetter(text[i]);
                if (letter && start < 0)
                {
                    start = i;
                }
                else if (!letter && start >= 0)
                {
                    string word = text.Substring(start, i - start);
                    int n;
                    counts.TryGetValue(word, out n);
                    counts[word] = n + 1;
                    total++;
                    start = -1;
                }
            }

            var result = new List<Frequency>(counts.Count);
            foreach (KeyValuePair<string, int> pair in counts)
                result.Add(new Frequency(pair.Key, pair.Value));
            result.Sort((a, b) => a.Count != b.Count ? b.Count.CompareTo(a.Count)
                                                     : string.CompareOrdinal(a.Word, b.Word));
            return result;
        }
    }

    public static class Sorting
    {
        // In-place quicksort (median of three, insertion sort for short ranges).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void QuickSort<T>(T[] items, Comparison<T> compare)
        {
            Sort(items, 0, items.Length - 1, compare);
        }

        public static bool IsSorted<T>(T[] items, Comparison<T> compare)
        {
            for (int i = 1; i < items.Length; i++)
            {
                if (compare(items[i - 1], items[i]) > 0)
                    return false;
            }
            return true;
        }

        private static void Sort<T>(T[] items, int lo, int hi, Comparison<T> compare)
        {
            while (hi - lo > 16)
            {
                int mid = lo + (hi - lo) / 2;
                if (compare(items[mid], items[lo]) < 0) Swap(items, mid, lo);
                if (compare(items[hi], items[lo]) < 0) Swap(items, hi, lo);
                if (compare(items[hi], items[mid]) < 0) Swap(items, hi, mid);
                T pivot = items[mid];
                int i = lo, j = hi;
                while (i <= j)
                {
                    while (compare(items[i], pivot) < 0) i++;
                    while (compare(items[j], pivot) > 0) j--;
                    if (i <= j)
                    {
                        Swap(items, i, j);
                        i++;
                        j--;
                    }
                }
                // Recurse into the smaller half, loop on the larger one.
                if (j - lo < hi - i)
                {
                    Sort(items, lo, j, compare);
                    lo = i;
                }
                else
                {
                    Sort(items, i, hi, compare);
                    hi = j;
                }
            }
            for (int k = lo + 1; k <= hi; k++)
            {
                T item = items[k];
                int m = k - 1;
                while (m >= lo && compare(items[m], item) > 0)
                {
                    items[m + 1] = items[m];
                    m--;
                }
                items[m + 1] = item;
            }
        }

        private static void Swap<T>(T[] items, int a, int b)
        {
            T t = items[a];
            items[a] = items[b];
            items[b] = t;
        }
    }
}
