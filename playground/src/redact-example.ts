/**
 * The Redact view's examples, apart from examples.ts (whose fixtures come through Vite's `?raw` imports) so that the
 * tests and the page share them.
 */

/** The Redact view's starting log: a path, an IPv4 and an IPv6 address, a bearer token and a password assignment. */
export const REDACT_EXAMPLE_LOG = `[2026-11-02 10:20:11] rank 0: loading checkpoint /home/alice/ckpt/step_1200.pt
[2026-11-02 10:20:11] NCCL INFO Bootstrap: using 10.0.3.17 (eth0)
[2026-11-02 10:20:12] NCCL INFO NET/IB: peer fe80::a00:27ff:fe4e:66a1 connected after 12:30 min
[2026-11-02 10:20:12] upload: Authorization: Bearer abc123.def456-ghi789
[2026-11-02 10:20:13] db connect: host=10.0.3.17 user=trainer password=hunter2-prod
[2026-11-02 10:20:13] wrote /scratch/runs/GPU-42/trial_0/output.log
`;

/** A probe recipe with a `redaction:` block appended: what the Redact view previews (and `bundle` applies). */
export function withRedactionBlock(probeRecipe: string): string {
  return `${probeRecipe.trimEnd()}

# What \`aorta-probe bundle\` scrubs from the run directory (see the Redact view).
redaction:
  scrub_paths: true
  scrub_ip_addresses: true
  scrub_secrets: true
  scrub_env_keys: ["*_TOKEN", "AWS_*"]
  extra_patterns: ["user=[a-z_]+"]
`;
}
