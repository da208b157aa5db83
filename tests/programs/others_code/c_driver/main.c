/* The C side of c_driver: scales 1000 values on the "device" and checks each. */
#include <stdio.h>

int scale_on_device(float *host, float factor, int n);

int main(void)
{
    float values[1000];
    int i;
    for (i = 0; i < 1000; i++)
        values[i] = (float)i;
    if (scale_on_device(values, 2.0f, 1000) != 0) {
        printf("FAIL: the device call failed\n");
        return 1;
    }
    for (i = 0; i < 1000; i++)
        if (values[i] != 2.0f * (float)i) {
            printf("FAIL: values[%d] = %g\n", i, values[i]);
            return 1;
        }
    printf("PASS\n");
    return 0;
}
