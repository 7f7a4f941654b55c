// Minimal Prometheus text exposition: counters, gauges and one histogram type.
export class Histogram {
  counts: number[];
  sum = 0;
  count = 0;
  constructor(public bounds: number[]) { this.counts = bounds.map(() => 0); }
  observe(v: number) {
    this.sum += v; this.count++;
    for (let i = 0; i < this.bounds.length; i++) if (v <= this.bounds[i]) { this.counts[i]++; return; }
  }
  render(name: string, help: string): string {
    const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
    let acc = 0;
    this.bounds.forEach((b, i) => { acc += this.counts[i]; lines.push(`${name}_bucket{le="${b}"} ${acc}`); });
    lines.push(`${name}_bucket{le="+Inf"} ${this.count}`, `${name}_sum ${this.sum}`, `${name}_count ${this.count}`);
    return lines.join('\n');
  }
}

export function metric(name: string, type: 'counter' | 'gauge', help: string, values: [labels: Record<string, string> | null, value: number][]): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
  for (const [labels, v] of values) {
    const l = labels ? `{${Object.entries(labels).map(([k, x]) => `${k}="${x}"`).join(',')}}` : '';
    lines.push(`${name}${l} ${v}`);
  }
  return lines.join('\n');
}
