// __powf(2, i) for an integer i is computed inline, exactly: this program defines powf itself,
// counting the calls, and checks that 2 to the integer powers -126..127 call it never and equal
// ldexpf's (and libm's powf's) values, and that other arguments still go to powf.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <dlfcn.h>

static int powf_calls = 0;

// The count after the calls that computed `value`: g++ takes powf for a function that writes only
// errno, so without this barrier it may read the count before them.
static int calls_after(float value)
{
    asm volatile("" : : "g"(value) : "memory");
    return powf_calls;
}

extern "C" float powf(float x, float y) noexcept
{
    ++powf_calls;
    using Pow = float (*)(float, float);
    static Pow libm_powf = reinterpret_cast<Pow>(dlsym(RTLD_NEXT, "powf"));
    return libm_powf(x, y);
}

int main()
{
    volatile float two = 2.0f;
    int bad = 0;
    float all = 0.0f;
    for (int i = -126; i <= 127; ++i) {
        float fast = __powf(two, (float)i);
        all += fast;
        if (fast != ldexpf(1.0f, i)) {
            printf("FAIL: __powf(2, %d) = %a\n", i, fast);
            ++bad;
        }
    }
    if (calls_after(all) != 0) {
        printf("FAIL: __powf(2, integer) called powf %d times\n", powf_calls);
        ++bad;
    }
    for (int i = -126; i <= 127; ++i)  // the same values as libm's powf
        if (__powf(two, (float)i) != powf(two, (float)i)) {
            printf("FAIL: libm's powf(2, %d) differs\n", i);
            ++bad;
        }
    volatile float half = 0.5f, big = 200.0f, three = 3.0f;
    const int before = calls_after(all);
    float others = __powf(two, half) + __powf(two, big) + __powf(three, two) + __powf(two, -130.0f);
    if (calls_after(others) != before + 4 || others != powf(2.0f, 0.5f) + powf(2.0f, 200.0f) + 9.0f + powf(2.0f, -130.0f)) {
        printf("FAIL: other arguments: %d calls, %a\n", powf_calls - before, others);
        ++bad;
    }
    if (bad == 0)
        printf("PASS\n");
    return bad != 0;
}
