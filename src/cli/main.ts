export async function main(argv: string[]): Promise<number> {
  console.log('interleave (CLI under construction)', argv.join(' '));
  return 0;
}
