// @HIP:501plain@
#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void standalone_501plain(float* data_501plain, int n_501plain) {
    int i_501plain = blockIdx.x * blockDim.x + threadIdx.x;
    if (i_501plain < n_501plain) data_501plain[i_501plain] = data_501plain[i_501plain] * 3.0f - 1.0f;
}

int main() {
    float* buf_501plain = nullptr;
    hipMalloc(&buf_501plain, 1024 * sizeof(float));
    hipLaunchKernelGGL(standalone_501plain, dim3(4), dim3(256), 0, 0, buf_501plain, 1024);
    hipDeviceSynchronize();
    hipFree(buf_501plain);
    printf("done\n");
    return 0;
}
