// backprop, OpenMP: one training step; the input layer's forward pass is a parallel loop over the
// inputs with an array reduction into the 16 hidden sums, the weight adjustment a parallel loop over
// the inputs.  Usage: backprop_omp IN SEED OUTFILE
#include <cmath>
#include <vector>
#include "inputs.h"

#define HID 16
#define ETA 0.3f
#define MOMENTUM 0.3f

static float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: backprop_omp IN SEED OUTFILE\n");
        return 2;
    }
    int in = atoi(argv[1]);
    SuiteRng rng(atoll(argv[2]));
    std::vector<float> input, weights, w2, old(in * HID, 0.0f);
    backprop_input(rng, in, HID, input, weights, w2);
    const float target = 0.9f;
    float hidden[HID], delta[HID];
    double t0 = suite_now();
    double sums[HID] = {0};  // in double, as the CUDA version's sum of the blocks' sums
    const float *w = weights.data(), *x = input.data();
#pragma omp parallel for reduction(+ : sums[:HID])
    for (int i = 0; i < in; ++i)
        for (int j = 0; j < HID; ++j)
            sums[j] += w[i * HID + j] * x[i];
    for (int j = 0; j < HID; ++j)
        hidden[j] = sigmoid((float)sums[j]);
    float out_sum = 0.0f;
    for (int j = 0; j < HID; ++j)
        out_sum += hidden[j] * w2[j];
    float output = sigmoid(out_sum);
    float delta_out = output * (1.0f - output) * (target - output);
    for (int j = 0; j < HID; ++j)
        delta[j] = hidden[j] * (1.0f - hidden[j]) * delta_out * w2[j];
    float *wm = weights.data(), *om = old.data();
#pragma omp parallel for
    for (int i = 0; i < in; ++i)
        for (int j = 0; j < HID; ++j) {
            int k = i * HID + j;
            float dw = ETA * delta[j] * x[i] + MOMENTUM * om[k];
            wm[k] += dw;
            om[k] = dw;
        }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[3]);
    for (int j = 0; j < HID; ++j)
        fprintf(out, "%.7e\n", hidden[j]);
    fprintf(out, "%.7e\n", output);
    for (int k = 0; k < in * HID; k += 97)
        fprintf(out, "%.7e\n", weights[k]);
    fclose(out);
    return 0;
}
