#!/usr/bin/env python3
"""FIXTURE generator (the fault report's mkfleet.py, reading e1.json in the working directory):
synthetic multi-GPU exports (old 'results' format, no 'tables') for models/fleet attacks.
usage: mkfleet.py OUTDIR"""
import json, sys, uuid, copy, random
out = sys.argv[1]
tmpl = json.load(open('e1.json'))
random.seed(3)
def mk(host, model, ngpu, date, slow=None, name_override=None, extra_results=None):
    d = copy.deepcopy(tmpl); d.pop('tables', None); d['telemetry'] = []
    d['run']['uuid'] = str(uuid.uuid4()); d['run']['started_at'] = date; d['run']['finished_at'] = date
    d['run']['tags'] = {'interconnect': 'nvlink'}
    d['environment']['host']['hostname'] = host
    gpus = []
    for i in range(ngpu):
        gpus.append({'nvml_index': i, 'uuid': f'GPU-{host}-{i}', 'name': name_override or model, 'pci_bus_id': f'00000000:{i+16:02x}:00.0',
                     'memory_bytes': 85899345920, 'sm_count': 132, 'compute_capability': '9.0', 'max_sm_clock_mhz': 1980,
                     'max_mem_clock_mhz': 2619, 'default_sm_clock_mhz': 1980, 'app_sm_clock_mhz': 1980, 'power_limit_w': 700.0,
                     'ecc': 'enabled', 'pcie_gen': 5, 'pcie_width': 16, 'numa_node': 0})
    d['environment']['gpus'] = gpus
    suite = copy.deepcopy(d['suites'][0]); suite['suite'] = 'memory'; suite['id'] = 1
    d['suites'] = [suite]
    res = []
    base = 3300.0 if 'H100' in model else 4300.0
    for i in range(ngpu):
        f = 0.85 if slow == i else 1.0
        vals = [base * f * (1 + random.gauss(0, 0.003)) for _ in range(5)]
        res.append({'benchmark': f'memory/device_triad/array_bytes:1073741824/device:{i}', 'case': 'device_triad', 'suite': 'memory', 'suite_run': 1,
                    'metric': 'GB_per_s', 'unit': 'GB/s', 'direction': 'higher', 'role': 'primary', 'status': 'ok', 'message': '',
                    'device_index': i, 'gpu_uuid': f'GPU-{host}-{i}', 'values': vals, 'kind': 'repetitions'})
    if extra_results: res += extra_results
    d['results'] = res
    return d
docs = {
 'h100a.json': mk('h100-node-A', 'NVIDIA H100 80GB HBM3', 8, '2026-11-01T00:00:00.000Z'),
 'h100b.json': mk('h100-node-B', 'NVIDIA H100 80GB HBM3', 8, '2026-11-02T00:00:00.000Z'),
 'h200a.json': mk('h200-node-A', 'NVIDIA H200', 8, '2026-11-03T00:00:00.000Z', slow=3),
 'h200b.json': mk('h200-node-B', 'NVIDIA H200', 8, '2026-11-04T00:00:00.000Z'),
 'evil.json': mk('evil-<script>alert(1)</script>', 'NVIDIA <img src=x onerror=alert(1)> \x1b[31mH100', 8, '2026-11-05T00:00:00.000Z', slow=2),
}
for k, v in docs.items(): json.dump(v, open(f'{out}/{k}', 'w'))
print('wrote', list(docs))
