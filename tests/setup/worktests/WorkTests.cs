// The test of the real/worktests fixture (`dotnet new xunit`, this file in place of the
// template's UnitTest1.cs): one test that does measurable work, for profiling `dotnet test`.
namespace Sxs.Tests.Work;

// Measurable work for a profiler to find under the test's name.
public static class Hashes
{
    public static long Compute(int milliseconds)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        long x = 1;
        do
        {
            for (int i = 0; i < 100000; i++)
                x = x * 6364136223846793005L + 1442695040888963407L;
        } while (clock.ElapsedMilliseconds < milliseconds);
        return x;
    }
}

public class WorkTests
{
    [Fact]
    public void ComputesHashes()
    {
        Assert.NotEqual(0, Hashes.Compute(2000));
    }
}
