// V8 RegExp on one subject, in its own process so the caller can kill it at the time cap.
// argv[2]: JSON { regex, flags, subjectA, subjectTail }, subject = 'a'.repeat(subjectA) + tail.
const spec = JSON.parse(process.argv[2]);
const re = new RegExp(spec.regex, spec.flags ?? '');
const subject = 'a'.repeat(spec.subjectA) + spec.subjectTail;
const t0 = performance.now();
const matched = re.test(subject);
process.stdout.write(
  JSON.stringify({ result: { timeMs: performance.now() - t0, matched }, maxRssKiB: process.resourceUsage().maxRSS }),
);
