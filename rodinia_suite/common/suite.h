// Shared by every benchmark of the suite, CUDA and OpenMP alike: the seeded input generator,
// the timer and the output writer, so both versions see the same input and report the same way.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// A 64-bit linear congruential generator: the same sequence on every platform for a seed.
struct SuiteRng {
    uint64_t state;
    explicit SuiteRng(uint64_t seed) : state(seed * 6364136223846793005ULL + 1442695040888963407ULL) {}
    uint32_t next()
    {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (uint32_t)(state >> 33);
    }
    // Uniform in [0, 1).
    float uniform() { return (next() & 0xFFFFFF) / 16777216.0f; }
    int below(int n) { return (int)(next() % (uint32_t)n); }
};

inline double suite_now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The machine-readable line the runner reads: the time of the program's main part.
inline void suite_report_time(double seconds) { printf("RODINIA_TIME %.9f\n", seconds); }

inline FILE *suite_open_output(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    return f;
}
