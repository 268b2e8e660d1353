/** What a fuzz run counted and found, and its printed summary. */

export type FindingKind =
  '5xx' | 'undocumented status' | 'schema mismatch' | 'bad error body' | 'graphql error' | 'transport';

export interface Finding {
  kind: FindingKind;
  /** `POST /payments/sessions` or `graphql mutation createPaymentSession`. */
  target: string;
  status: number;
  problem: string;
  /** Reproduces the request: the run's seed and the request's index (FUZZ_SEED, FUZZ_REPLAY). */
  seed: number;
  index: number;
  request: string;
  response: string;
}

export class Report {
  readonly sent = new Map<string, Map<number, number>>();
  readonly findings: Finding[] = [];

  count(target: string, status: number): void {
    const statuses = this.sent.get(target) ?? new Map<number, number>();
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    this.sent.set(target, statuses);
  }

  add(finding: Finding): void {
    this.findings.push(finding);
  }

  get total(): number {
    return [...this.sent.values()].reduce(
      (sum, statuses) => sum + [...statuses.values()].reduce((a, b) => a + b, 0),
      0,
    );
  }

  countOf(kind: FindingKind): number {
    return this.findings.filter((finding) => finding.kind === kind).length;
  }

  /** 5xx answers, whether or not they were also another kind of finding. */
  get serverErrors(): number {
    let count = 0;
    for (const statuses of this.sent.values()) for (const [status, n] of statuses) if (status >= 500) count += n;
    return count;
  }

  summary(seed: number, seconds: number): string {
    const lines = [
      `fuzz: seed ${seed}, ${seconds.toFixed(0)} s, ${this.total} requests, ${this.serverErrors} answers 5xx, ${this.findings.length} findings`,
      '',
      'requests per route (status: count):',
    ];
    for (const [target, statuses] of [...this.sent].sort(([a], [b]) => a.localeCompare(b))) {
      const total = [...statuses.values()].reduce((a, b) => a + b, 0);
      const detail = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}:${n}`);
      lines.push(`  ${String(total).padStart(6)}  ${target.padEnd(70)} ${detail.join(' ')}`);
    }
    const kinds = [...new Set(this.findings.map((finding) => finding.kind))];
    lines.push('', kinds.length ? 'findings:' : 'findings: none');
    for (const kind of kinds) {
      const ofKind = this.findings.filter((finding) => finding.kind === kind);
      lines.push(`  ${kind}: ${ofKind.length}`);
      // Grouped by target and problem, one example each.
      const groups = new Map<string, Finding[]>();
      for (const finding of ofKind) {
        const key = `${finding.target} | ${finding.status} | ${finding.problem.slice(0, 160)}`;
        groups.set(key, [...(groups.get(key) ?? []), finding]);
      }
      for (const [key, list] of groups) {
        const example = list[0]!;
        lines.push(`    ${list.length}x ${key}`);
        lines.push(`       replay: FUZZ_SEED=${example.seed} FUZZ_REPLAY=${example.index}`);
        lines.push(`       request:  ${example.request.slice(0, 400)}`);
        lines.push(`       response: ${example.response.slice(0, 400)}`);
      }
    }
    return lines.join('\n');
  }
}
