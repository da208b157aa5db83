// cfd, OpenMP: the same explicit Euler solver, float and then double; every kernel of the CUDA
// version is a parallel loop over the cells (the per-cell state kept in structure-of-arrays
// layout, as the mesh gives it), and the free stream is an ordinary array.
// Usage: cfd_omp NX NY ITERS SEED OUTFILE
#include <cmath>
#include <cstring>
#include <vector>
#include "inputs.h"

#define NNB 4
#define NVAR 5
#define RK 3
#define GAMMA 1.4
#define SMOOTHING 0.2

enum { DENSITY = 0, MOMENTUM = 1, ENERGY = 4 };
enum { FF_VAR = 0, FF_MX = 5, FF_MY = 8, FF_MZ = 11, FF_DE = 14, FF_SIZE = 17 };

template <typename Real>
static inline Real pressure_of(Real density, Real mx, Real my, Real mz, Real energy)
{
    Real speed_sqd = (mx * mx + my * my + mz * mz) / (density * density);
    return Real(GAMMA - 1.0) * (energy - Real(0.5) * density * speed_sqd);
}

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
static void compute_flux(int cells, const int *neighbours, const Real *normals, const Real *variables, Real *fluxes,
                         const Real *ff)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < cells; ++i) {
        Real d_i = variables[i + DENSITY * cells];
        Real mx_i = variables[i + (MOMENTUM + 0) * cells], my_i = variables[i + (MOMENTUM + 1) * cells],
             mz_i = variables[i + (MOMENTUM + 2) * cells];
        Real e_i = variables[i + ENERGY * cells];
        Real vx_i = mx_i / d_i, vy_i = my_i / d_i, vz_i = mz_i / d_i;
        Real p_i = pressure_of(d_i, mx_i, my_i, mz_i, e_i);
        Real speed_i = std::sqrt(vx_i * vx_i + vy_i * vy_i + vz_i * vz_i);
        Real sound_i = std::sqrt(Real(GAMMA) * p_i / d_i);
        Real de_i = e_i + p_i;
        Real f_d = 0, f_mx = 0, f_my = 0, f_mz = 0, f_e = 0;
        for (int j = 0; j < NNB; ++j) {
            int nb = neighbours[i + j * cells];
            Real nx = normals[i + (j + 0 * NNB) * cells], ny = normals[i + (j + 1 * NNB) * cells],
                 nz = normals[i + (j + 2 * NNB) * cells];
            Real hx = Real(0.5) * nx, hy = Real(0.5) * ny, hz = Real(0.5) * nz;
            if (nb >= 0) {
                Real d_n = variables[nb + DENSITY * cells];
                Real mx_n = variables[nb + (MOMENTUM + 0) * cells], my_n = variables[nb + (MOMENTUM + 1) * cells],
                     mz_n = variables[nb + (MOMENTUM + 2) * cells];
                Real e_n = variables[nb + ENERGY * cells];
                Real vx_n = mx_n / d_n, vy_n = my_n / d_n, vz_n = mz_n / d_n;
                Real p_n = pressure_of(d_n, mx_n, my_n, mz_n, e_n);
                Real speed_n = std::sqrt(vx_n * vx_n + vy_n * vy_n + vz_n * vz_n);
                Real sound_n = std::sqrt(Real(GAMMA) * p_n / d_n);
                Real de_n = e_n + p_n;
                Real len = std::sqrt(nx * nx + ny * ny + nz * nz);
                Real smooth = -len * Real(SMOOTHING) * Real(0.5) * (speed_i + sound_i + speed_n + sound_n);
                f_d += smooth * (d_i - d_n);
                f_e += smooth * (e_i - e_n);
                f_mx += smooth * (mx_i - mx_n);
                f_my += smooth * (my_i - my_n);
                f_mz += smooth * (mz_i - mz_n);
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
                f_mx += nx * p_i;
                f_my += ny * p_i;
                f_mz += nz * p_i;
            } else {
                f_d += hx * (ff[FF_VAR + MOMENTUM + 0] + mx_i) + hy * (ff[FF_VAR + MOMENTUM + 1] + my_i) +
                       hz * (ff[FF_VAR + MOMENTUM + 2] + mz_i);
                f_e += hx * (ff[FF_DE + 0] + vx_i * de_i) + hy * (ff[FF_DE + 1] + vy_i * de_i) +
                       hz * (ff[FF_DE + 2] + vz_i * de_i);
                f_mx += hx * (ff[FF_MX + 0] + vx_i * mx_i + p_i) + hy * (ff[FF_MY + 0] + vy_i * mx_i) +
                        hz * (ff[FF_MZ + 0] + vz_i * mx_i);
                f_my += hx * (ff[FF_MX + 1] + vx_i * my_i) + hy * (ff[FF_MY + 1] + vy_i * my_i + p_i) +
                        hz * (ff[FF_MZ + 1] + vz_i * my_i);
                f_mz += hx * (ff[FF_MX + 2] + vx_i * mz_i) + hy * (ff[FF_MY + 2] + vy_i * mz_i) +
                        hz * (ff[FF_MZ + 2] + vz_i * mz_i + p_i);
            }
        }
        fluxes[i + DENSITY * cells] = f_d;
        fluxes[i + (MOMENTUM + 0) * cells] = f_mx;
        fluxes[i + (MOMENTUM + 1) * cells] = f_my;
        fluxes[i + (MOMENTUM + 2) * cells] = f_mz;
        fluxes[i + ENERGY * cells] = f_e;
    }
}

template <typename Real>
static double solve(const CfdMesh &mesh, int iters, std::vector<double> &result)
{
    int cells = mesh.cells;
    Real ff[FF_SIZE];
    far_field_state(ff);
    std::vector<Real> normals(mesh.normals.begin(), mesh.normals.end()), areas(mesh.areas.begin(), mesh.areas.end()),
        bump(mesh.bump.begin(), mesh.bump.end());
    std::vector<Real> variables(NVAR * cells), old(NVAR * cells), fluxes(NVAR * cells), steps(cells);
    for (int v = 0; v < NVAR; ++v)
        for (int i = 0; i < cells; ++i)
            variables[i + v * cells] = ff[FF_VAR + v] * (v == DENSITY ? bump[i] : Real(1));
    double t0 = suite_now();
    Real *var = variables.data(), *old_var = old.data(), *flux = fluxes.data(), *step = steps.data();
    const Real *area = areas.data();
    for (int it = 0; it < iters; ++it) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < cells; ++i) {
            for (int v = 0; v < NVAR; ++v)
                old_var[i + v * cells] = var[i + v * cells];
            Real density = var[i + DENSITY * cells];
            Real mx = var[i + (MOMENTUM + 0) * cells], my = var[i + (MOMENTUM + 1) * cells],
                 mz = var[i + (MOMENTUM + 2) * cells];
            Real energy = var[i + ENERGY * cells];
            Real speed = std::sqrt((mx * mx + my * my + mz * mz) / (density * density));
            Real sound = std::sqrt(Real(GAMMA) * pressure_of(density, mx, my, mz, energy) / density);
            step[i] = Real(0.5) / (std::sqrt(area[i]) * (speed + sound));
        }
        for (int stage = 0; stage < RK; ++stage) {
            compute_flux(cells, mesh.neighbours.data(), normals.data(), var, flux, ff);
#pragma omp parallel for schedule(static)
            for (int i = 0; i < cells; ++i) {
                Real factor = step[i] / Real(RK + 1 - stage);
                for (int v = 0; v < NVAR; ++v)
                    var[i + v * cells] = old_var[i + v * cells] + factor * flux[i + v * cells];
            }
        }
    }
    double seconds = suite_now() - t0;
    result.assign(variables.begin(), variables.end());
    return seconds;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: cfd_omp NX NY ITERS SEED OUTFILE\n");
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
