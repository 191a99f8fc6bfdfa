"""The trial programs of scripts/gpu-check/run.mjs: one PyTorch program per mode, run as a trial by `aorta-probe run`
or `sweep` (docs/gpu.md, "Checking against a real GPU").

    python3 gpu_trial.py context [SEC]      CUDA context size: device memory.used (nvidia-smi) before and after
                                            CUDA starts, less what PyTorch reserved; then hold it SEC s
    python3 gpu_trial.py hold GIB SEC       reserve GIB GiB, say so, hold it SEC s, exit 0
    python3 gpu_trial.py compute SEC        matmuls for SEC s without a word of output (a busy GPU), exit 0
    python3 gpu_trial.py sleep SEC GIB      hold GIB GiB, say so, and sleep SEC s without output (a hang)
    python3 gpu_trial.py oom                ask for twice the device's memory: torch.cuda.OutOfMemoryError, exit 1
    python3 gpu_trial.py nan                a training loop whose loss turns NaN at step 4, exit 0
    python3 gpu_trial.py loop SEC           a tight loop of tiny kernels, each waited for: its rate
    python3 gpu_trial.py gpus SEC GIB       what a sweep's trial was given (CUDA_VISIBLE_DEVICES, ...), with memory held

Every fact for the checking script is one line `GPU_CHECK {json}` on stdout. Only the handful of torch calls the
fake torch (fixtures/gpu-check/python/torch/) imitates are used here.
"""

import json
import os
import subprocess
import sys
import time

MIB = 1 << 20
GIB = 1 << 30


def report(**facts):
    print('GPU_CHECK ' + json.dumps(facts, sort_keys=True), flush=True)


def nvidia_smi(*args):
    out = subprocess.run(
        ['nvidia-smi', *args, '--format=csv,noheader,nounits'], capture_output=True, text=True, timeout=30, check=True
    )
    return [line.strip() for line in out.stdout.splitlines() if line.strip() != '']


def device_used_mib():
    """memory.used summed over the GPUs nvidia-smi lists (the device the sampler reads)."""
    return sum(int(v) for v in nvidia_smi('--query-gpu=memory.used'))


def own_process_mib():
    """This process's used_memory in --query-compute-apps, or None (e.g. host pids in a container)."""
    for line in nvidia_smi('--query-compute-apps=pid,used_memory'):
        pid, mib = [c.strip() for c in line.split(',')]
        if pid == str(os.getpid()) and mib.isdigit():
            return int(mib)
    return None


def context(sec=0.0):
    before = device_used_mib()
    import torch

    torch.zeros(1, device='cuda')
    torch.cuda.synchronize()
    after = device_used_mib()
    reserved = torch.cuda.memory_reserved() / MIB
    report(
        phase='context',
        torch=torch.__version__,
        cuda=torch.version.cuda,
        device_name=torch.cuda.get_device_name(0),
        device_used_before_mib=before,
        device_used_after_mib=after,
        reserved_mib=reserved,
        context_mib=after - before - reserved,
        process_used_mib=own_process_mib(),
    )
    time.sleep(sec)  # for the sampler to see the context too


def hold(gib, sec):
    import torch

    t = torch.empty(int(gib * GIB), dtype=torch.uint8, device='cuda')
    torch.cuda.synchronize()
    report(
        phase='holding',
        gib=gib,
        reserved_mib=torch.cuda.memory_reserved() / MIB,
        max_reserved_mib=torch.cuda.max_memory_reserved() / MIB,
    )
    time.sleep(sec)
    del t
    report(phase='done')


def compute(sec):
    import torch

    n = int(os.environ.get('GPU_CHECK_MATMUL_N', '8192'))
    a = torch.randn(n, n, device='cuda')
    b = a @ a
    torch.cuda.synchronize()
    report(phase='compute-start', n=n)
    iterations = 0
    end = time.monotonic() + sec
    while time.monotonic() < end:
        b = a @ a
        torch.cuda.synchronize()
        iterations += 1
    del b
    report(phase='compute-end', iterations=iterations)


def sleep(sec, gib):
    import torch

    t = torch.empty(int(gib * GIB), dtype=torch.uint8, device='cuda')
    torch.cuda.synchronize()
    report(phase='holding', gib=gib, max_reserved_mib=torch.cuda.max_memory_reserved() / MIB)
    time.sleep(sec)
    del t
    report(phase='done')


def oom():
    import torch

    free, total = torch.cuda.mem_get_info()
    try:
        torch.empty(2 * total, dtype=torch.uint8, device='cuda')
    except BaseException as e:
        kind = type(e)
        report(
            phase='oom',
            type=f'{kind.__module__}.{kind.__qualname__}',
            is_cuda_oom=isinstance(e, torch.cuda.OutOfMemoryError),
        )
        raise
    report(phase='oom', type=None, is_cuda_oom=False)


def nan():
    import torch

    for step in range(1, 6):
        value = -1.0 if step >= 4 else 2.0 + step
        loss = torch.log(torch.full((1024,), value, device='cuda')).mean().item()
        print(f'step {step} loss={loss:.4f}', flush=True)


def loop(sec):
    import torch

    x = torch.zeros(1, device='cuda')
    for _ in range(100):
        x.add_(1)
        torch.cuda.synchronize()
    iterations = 0
    start = time.perf_counter()
    end = start + sec
    now = start
    while now < end:
        for _ in range(100):
            x.add_(1)
            torch.cuda.synchronize()
        iterations += 100
        now = time.perf_counter()
    report(phase='loop', iterations=iterations, seconds=now - start, rate=iterations / (now - start))


def gpus(sec, gib):
    start = time.time()
    import torch

    t = torch.empty(int(gib * GIB), dtype=torch.uint8, device='cuda')
    torch.cuda.synchronize()
    time.sleep(sec)
    del t
    report(
        phase='gpus',
        start=start,
        end=time.time(),
        cuda_visible_devices=os.environ.get('CUDA_VISIBLE_DEVICES'),
        hip_visible_devices=os.environ.get('HIP_VISIBLE_DEVICES'),
        device_count=torch.cuda.device_count(),
    )


def main(argv):
    mode, args = argv[0], [float(a) for a in argv[1:]]
    modes = {
        'context': context,
        'hold': hold,
        'compute': compute,
        'sleep': sleep,
        'oom': oom,
        'nan': nan,
        'loop': loop,
        'gpus': gpus,
    }
    modes[mode](*args)


if __name__ == '__main__':
    main(sys.argv[1:])
