// sanrun: launches one kernel of a PTX or cubin module through the CUDA
// driver API as a launch file describes it, so that compute-sanitizer can
// watch it (ptxvm issue 25). gen.py writes the launch files from the
// specs. Format, one item a line, arguments in parameter order:
//
//   module PATH            .cubin (loaded as is) or .ptx (JIT, with line info)
//   kernel NAME
//   grid X Y Z
//   block X Y Z
//   smem BYTES
//   buf BYTES none|zero|file PATH|iota_f32|iota_u32|const_f32 V|const_u32 V
//   u32 V | s32 V | u64 V | f32 V | f64 V
//
// "none" leaves the allocation as cuMemAlloc gave it (uninitialised for
// initcheck). Prints "launch: OK" or the CUDA error of the launch.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static void check(CUresult r, const char* what)
{
    if (r != CUDA_SUCCESS) {
        const char* s = nullptr;
        cuGetErrorName(r, &s);
        printf("%s: %s\n", what, s ? s : "?");
        exit(2);
    }
}

int main(int argc, char** argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sanrun LAUNCH.txt\n");
        return 2;
    }
    std::ifstream in(argv[1]);
    std::string line, module, kernel;
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, smem = 0;
    struct Arg {
        std::string kind, init, path;
        size_t bytes = 0;
        double v = 0;
        unsigned long long u = 0;
    };
    std::vector<Arg> args;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string key;
        if (!(ls >> key))
            continue;
        if (key == "module") ls >> module;
        else if (key == "kernel") ls >> kernel;
        else if (key == "grid") ls >> grid[0] >> grid[1] >> grid[2];
        else if (key == "block") ls >> block[0] >> block[1] >> block[2];
        else if (key == "smem") ls >> smem;
        else {
            Arg a;
            a.kind = key;
            if (key == "buf") {
                ls >> a.bytes >> a.init;
                if (a.init == "file") ls >> a.path;
                else if (a.init == "const_f32") ls >> a.v;
                else if (a.init == "const_u32") ls >> a.u;
            } else if (key == "f32" || key == "f64") {
                ls >> a.v;
            } else {
                long long s;
                ls >> s;
                a.u = (unsigned long long)s;
            }
            args.push_back(a);
        }
    }
    check(cuInit(0), "cuInit");
    CUdevice dev;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    CUcontext ctx;
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    CUmodule mod;
    if (module.size() > 4 && module.substr(module.size() - 4) == ".ptx") {
        std::ifstream f(module, std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        CUjit_option opt[] = {CU_JIT_GENERATE_LINE_INFO};
        void* val[] = {(void*)(size_t)1};
        check(cuModuleLoadDataEx(&mod, text.c_str(), 1, opt, val), "cuModuleLoadDataEx");
    } else {
        check(cuModuleLoad(&mod, module.c_str()), "cuModuleLoad");
    }
    CUfunction fn;
    check(cuModuleGetFunction(&fn, mod, kernel.c_str()), "cuModuleGetFunction");
    std::vector<CUdeviceptr> ptrs;
    std::vector<unsigned long long> vals(args.size());
    std::vector<void*> params(args.size());
    for (size_t i = 0; i < args.size(); i++) {
        Arg& a = args[i];
        if (a.kind == "buf") {
            CUdeviceptr p;
            check(cuMemAlloc(&p, a.bytes), "cuMemAlloc");
            ptrs.push_back(p);
            if (a.init != "none") {
                std::vector<unsigned char> h(a.bytes, 0);
                size_t n = a.bytes / 4;
                if (a.init == "file") {
                    std::ifstream f(a.path, std::ios::binary);
                    f.read((char*)h.data(), a.bytes);
                } else if (a.init == "iota_f32") {
                    for (size_t k = 0; k < n; k++) ((float*)h.data())[k] = (float)k;
                } else if (a.init == "iota_u32") {
                    for (size_t k = 0; k < n; k++) ((unsigned*)h.data())[k] = (unsigned)k;
                } else if (a.init == "const_f32") {
                    for (size_t k = 0; k < n; k++) ((float*)h.data())[k] = (float)a.v;
                } else if (a.init == "const_u32") {
                    for (size_t k = 0; k < n; k++) ((unsigned*)h.data())[k] = (unsigned)a.u;
                }
                check(cuMemcpyHtoD(p, h.data(), a.bytes), "cuMemcpyHtoD");
            }
            vals[i] = p;
        } else if (a.kind == "f32") {
            float f = (float)a.v;
            memcpy(&vals[i], &f, 4);
        } else if (a.kind == "f64") {
            memcpy(&vals[i], &a.v, 8);
        } else {
            vals[i] = a.u;
        }
        params[i] = &vals[i];
    }
    CUresult r = cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], smem, 0, params.data(), nullptr);
    if (r == CUDA_SUCCESS)
        r = cuCtxSynchronize();
    const char* s = nullptr;
    cuGetErrorName(r, &s);
    printf("launch: %s\n", r == CUDA_SUCCESS ? "OK" : (s ? s : "?"));
    return 0;
}
