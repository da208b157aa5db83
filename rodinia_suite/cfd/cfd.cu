// cfd: an explicit finite-volume solver of the 3-D Euler equations on an unstructured mesh, run in
// float and then in double.  The GPU way: one thread per cell, the cell's state in structure-of-
// arrays layout, the free-stream (far-field) state and its fluxes in __constant__ memory (filled
// with cudaMemcpyToSymbol), and per iteration four kernels: the local time step, then three
// Runge-Kutta stages of flux (over the cell's four faces: neighbour, wall or far field) and update.
// Kernels are templates over the precision; constants are converted with C-style casts because
// cuda2cpu drops the argument of a functional cast to a template type (Real(0.5) becomes Real()).
// Usage: cfd NX NY ITERS SEED OUTFILE
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

#define NNB 4
#define NVAR 5
#define RK 3
#define GAMMA 1.4
#define SMOOTHING 0.2
#define BLOCK 128

enum { DENSITY = 0, MOMENTUM = 1, ENERGY = 4 };
// The far-field state: variables, then the x, y and z momentum fluxes and the energy flux.
enum { FF_VAR = 0, FF_MX = 5, FF_MY = 8, FF_MZ = 11, FF_DE = 14, FF_SIZE = 17 };

__constant__ float far_field_float[FF_SIZE];
__constant__ double far_field_double[FF_SIZE];

__device__ inline float far_field(float, int k) { return far_field_float[k]; }
__device__ inline double far_field(double, int k) { return far_field_double[k]; }

template <typename Real>
__device__ inline Real pressure_of(Real density, Real mx, Real my, Real mz, Real energy)
{
    Real speed_sqd = (mx * mx + my * my + mz * mz) / (density * density);
    return (Real)(GAMMA - 1.0) * (energy - (Real)0.5 * density * speed_sqd);
}

template <typename Real>
__global__ void initialize_variables(int cells, const Real *bump, Real *variables)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cells)
        return;
    for (int v = 0; v < NVAR; ++v)
        variables[i + v * cells] = far_field((Real)0, FF_VAR + v) * (v == DENSITY ? bump[i] : (Real)1);
}

template <typename Real>
__global__ void compute_step_factor(int cells, const Real *variables, const Real *areas, Real *step_factors)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cells)
        return;
    Real density = variables[i + DENSITY * cells];
    Real mx = variables[i + (MOMENTUM + 0) * cells], my = variables[i + (MOMENTUM + 1) * cells],
         mz = variables[i + (MOMENTUM + 2) * cells];
    Real energy = variables[i + ENERGY * cells];
    Real speed = std::sqrt((mx * mx + my * my + mz * mz) / (density * density));
    Real sound = std::sqrt((Real)GAMMA * pressure_of(density, mx, my, mz, energy) / density);
    step_factors[i] = (Real)0.5 / (std::sqrt(areas[i]) * (speed + sound));
}

template <typename Real>
__global__ void compute_flux(int cells, const int *neighbours, const Real *normals, const Real *variables,
                             Real *fluxes)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cells)
        return;
    Real d_i = variables[i + DENSITY * cells];
    Real mx_i = variables[i + (MOMENTUM + 0) * cells], my_i = variables[i + (MOMENTUM + 1) * cells],
         mz_i = variables[i + (MOMENTUM + 2) * cells];
    Real e_i = variables[i + ENERGY * cells];
    Real vx_i = mx_i / d_i, vy_i = my_i / d_i, vz_i = mz_i / d_i;
    Real p_i = pressure_of(d_i, mx_i, my_i, mz_i, e_i);
    Real speed_i = std::sqrt(vx_i * vx_i + vy_i * vy_i + vz_i * vz_i);
    Real sound_i = std::sqrt((Real)GAMMA * p_i / d_i);
    Real de_i = e_i + p_i;
    Real f_d = 0, f_mx = 0, f_my = 0, f_mz = 0, f_e = 0;
    for (int j = 0; j < NNB; ++j) {
        int nb = neighbours[i + j * cells];
        Real nx = normals[i + (j + 0 * NNB) * cells], ny = normals[i + (j + 1 * NNB) * cells],
             nz = normals[i + (j + 2 * NNB) * cells];
        if (nb >= 0) {
            Real d_n = variables[nb + DENSITY * cells];
            Real mx_n = variables[nb + (MOMENTUM + 0) * cells], my_n = variables[nb + (MOMENTUM + 1) * cells],
                 mz_n = variables[nb + (MOMENTUM + 2) * cells];
            Real e_n = variables[nb + ENERGY * cells];
            Real vx_n = mx_n / d_n, vy_n = my_n / d_n, vz_n = mz_n / d_n;
            Real p_n = pressure_of(d_n, mx_n, my_n, mz_n, e_n);
            Real speed_n = std::sqrt(vx_n * vx_n + vy_n * vy_n + vz_n * vz_n);
            Real sound_n = std::sqrt((Real)GAMMA * p_n / d_n);
            Real de_n = e_n + p_n;
            // Artificial dissipation proportional to the faster wave of the two cells.
            Real len = std::sqrt(nx * nx + ny * ny + nz * nz);
            Real smooth = -len * (Real)SMOOTHING * (Real)0.5 * (speed_i + sound_i + speed_n + sound_n);
            f_d += smooth * (d_i - d_n);
            f_e += smooth * (e_i - e_n);
            f_mx += smooth * (mx_i - mx_n);
            f_my += smooth * (my_i - my_n);
            f_mz += smooth * (mz_i - mz_n);
            // The average of the two cells' fluxes through the face.
            Real hx = (Real)0.5 * nx, hy = (Real)0.5 * ny, hz = (Real)0.5 * nz;
            f_d += hx * (mx_n + mx_i) + hy * (my_n + my_i) + hz * (mz_n + mz_i);
            f_e += hx * (vx_n * de_n + vx_i * de_i) + hy * (vy_n * de_n + vy_i * de_i) +
                   hz * (vz_n * de_n + vz_i * de_i);
            f_mx += hx * (vx_n * mx_n + p_n + vx_i * mx_i + p_i) + hy * (vy_n * mx_n + vy_i * mx_i) +
                    hz * (vz_n * mx_n + vz_i * mx_i);
            f_my += hx * (vx_n * my_n + vx_i * my_i) + hy * (vy_n * my_n + p_n + vy_i * my_i + p_i) +
                    hz * (vz_n * my_n + vz_i * my_i);
            f_mz += hx * (vx_n * mz_n + vx_i * mz_i) + hy * (vy_n * mz_n + vy_i * mz_i) +
                    hz * (vz_n * mz_n + p_n + vz_i * mz_i + p_i);
        } else if (nb == -1) {
            // Wall: only the pressure pushes.
            f_mx += nx * p_i;
            f_my += ny * p_i;
            f_mz += nz * p_i;
        } else {
            // Far field: the free stream's fluxes from constant memory.
            Real hx = (Real)0.5 * nx, hy = (Real)0.5 * ny, hz = (Real)0.5 * nz;
            Real z = (Real)0;
            f_d += hx * (far_field(z, FF_VAR + MOMENTUM + 0) + mx_i) + hy * (far_field(z, FF_VAR + MOMENTUM + 1) + my_i) +
                   hz * (far_field(z, FF_VAR + MOMENTUM + 2) + mz_i);
            f_e += hx * (far_field(z, FF_DE + 0) + vx_i * de_i) + hy * (far_field(z, FF_DE + 1) + vy_i * de_i) +
                   hz * (far_field(z, FF_DE + 2) + vz_i * de_i);
            f_mx += hx * (far_field(z, FF_MX + 0) + vx_i * mx_i + p_i) + hy * (far_field(z, FF_MY + 0) + vy_i * mx_i) +
                    hz * (far_field(z, FF_MZ + 0) + vz_i * mx_i);
            f_my += hx * (far_field(z, FF_MX + 1) + vx_i * my_i) + hy * (far_field(z, FF_MY + 1) + vy_i * my_i + p_i) +
                    hz * (far_field(z, FF_MZ + 1) + vz_i * my_i);
            f_mz += hx * (far_field(z, FF_MX + 2) + vx_i * mz_i) + hy * (far_field(z, FF_MY + 2) + vy_i * mz_i) +
                    hz * (far_field(z, FF_MZ + 2) + vz_i * mz_i + p_i);
        }
    }
    fluxes[i + DENSITY * cells] = f_d;
    fluxes[i + (MOMENTUM + 0) * cells] = f_mx;
    fluxes[i + (MOMENTUM + 1) * cells] = f_my;
    fluxes[i + (MOMENTUM + 2) * cells] = f_mz;
    fluxes[i + ENERGY * cells] = f_e;
}

template <typename Real>
__global__ void time_step(int stage, int cells, const Real *old_variables, Real *variables, const Real *step_factors,
                          const Real *fluxes)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cells)
        return;
    Real factor = step_factors[i] / (Real)(RK + 1 - stage);
    for (int v = 0; v < NVAR; ++v)
        variables[i + v * cells] = old_variables[i + v * cells] + factor * fluxes[i + v * cells];
}

// The free stream: Mach 1.2 at an angle of attack of 3 degrees, and the fluxes it carries.
template <typename Real>
static void far_field_state(Real *ff)
{
    const double angle = 3.0 * 3.14159265358979323846 / 180.0, mach = 1.2, density = 1.4, pressure = 1.0;
    double speed = mach * std::sqrt(GAMMA * pressure / density);
    double v[3] = {speed * std::cos(angle), speed * std::sin(angle), 0.0};
    double energy = density * 0.5 * speed * speed + pressure / (GAMMA - 1.0);
    ff[FF_VAR + DENSITY] = (Real)density;
    for (int d = 0; d < 3; ++d)
        ff[FF_VAR + MOMENTUM + d] = (Real)(density * v[d]);
    ff[FF_VAR + ENERGY] = (Real)energy;
    for (int d = 0; d < 3; ++d) {
        double m = density * v[d];
        ff[FF_MX + d] = (Real)(v[0] * m + (d == 0 ? pressure : 0.0));
        ff[FF_MY + d] = (Real)(v[1] * m + (d == 1 ? pressure : 0.0));
        ff[FF_MZ + d] = (Real)(v[2] * m + (d == 2 ? pressure : 0.0));
        ff[FF_DE + d] = (Real)(v[d] * (energy + pressure));
    }
}

template <typename Real>
static Real *to_device(const std::vector<double> &host)
{
    std::vector<Real> converted(host.begin(), host.end());
    Real *d;
    cudaMalloc(&d, converted.size() * sizeof(Real));
    cudaMemcpy(d, converted.data(), converted.size() * sizeof(Real), cudaMemcpyHostToDevice);
    return d;
}

// Runs the solver in precision Real; returns the time of the iterations and leaves the final
// density and energy in `result`.
template <typename Real>
static double solve(const CfdMesh &mesh, int iters, std::vector<double> &result)
{
    int cells = mesh.cells;
    Real ff[FF_SIZE];
    far_field_state(ff);
    if (sizeof(Real) == sizeof(float))
        cudaMemcpyToSymbol(far_field_float, ff, sizeof ff);
    else
        cudaMemcpyToSymbol(far_field_double, ff, sizeof ff);
    int *d_neighbours;
    cudaMalloc(&d_neighbours, mesh.neighbours.size() * sizeof(int));
    cudaMemcpy(d_neighbours, mesh.neighbours.data(), mesh.neighbours.size() * sizeof(int), cudaMemcpyHostToDevice);
    Real *d_normals = to_device<Real>(mesh.normals), *d_areas = to_device<Real>(mesh.areas);
    Real *d_bump = to_device<Real>(mesh.bump);
    Real *d_variables, *d_old, *d_fluxes, *d_steps;
    cudaMalloc(&d_variables, NVAR * cells * sizeof(Real));
    cudaMalloc(&d_old, NVAR * cells * sizeof(Real));
    cudaMalloc(&d_fluxes, NVAR * cells * sizeof(Real));
    cudaMalloc(&d_steps, cells * sizeof(Real));
    dim3 grid((cells + BLOCK - 1) / BLOCK), block(BLOCK);
    initialize_variables<Real><<<grid, block>>>(cells, d_bump, d_variables);
    cudaDeviceSynchronize();
    double t0 = suite_now();
    for (int it = 0; it < iters; ++it) {
        cudaMemcpy(d_old, d_variables, NVAR * cells * sizeof(Real), cudaMemcpyDeviceToDevice);
        compute_step_factor<Real><<<grid, block>>>(cells, d_variables, d_areas, d_steps);
        for (int stage = 0; stage < RK; ++stage) {
            compute_flux<Real><<<grid, block>>>(cells, d_neighbours, d_normals, d_variables, d_fluxes);
            time_step<Real><<<grid, block>>>(stage, cells, d_old, d_variables, d_steps, d_fluxes);
        }
    }
    cudaDeviceSynchronize();
    double seconds = suite_now() - t0;
    std::vector<Real> variables(NVAR * cells);
    cudaMemcpy(variables.data(), d_variables, NVAR * cells * sizeof(Real), cudaMemcpyDeviceToHost);
    result.assign(variables.begin(), variables.end());
    cudaFree(d_neighbours);
    cudaFree(d_normals);
    cudaFree(d_areas);
    cudaFree(d_bump);
    cudaFree(d_variables);
    cudaFree(d_old);
    cudaFree(d_fluxes);
    cudaFree(d_steps);
    return seconds;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: cfd NX NY ITERS SEED OUTFILE\n");
        return 2;
    }
    int nx = atoi(argv[1]), ny = atoi(argv[2]), iters = atoi(argv[3]);
    SuiteRng rng(atoll(argv[4]));
    CfdMesh mesh = cfd_mesh(rng, nx, ny);
    std::vector<double> single, twice;
    double seconds = solve<float>(mesh, iters, single) + solve<double>(mesh, iters, twice);
    suite_report_time(seconds);
    FILE *out = suite_open_output(argv[5]);
    for (size_t k = 0; k < single.size(); k += 3)
        fprintf(out, "%.7e\n", single[k]);
    for (size_t k = 0; k < twice.size(); k += 3)
        fprintf(out, "%.15e\n", twice[k]);
    fclose(out);
    return 0;
}
