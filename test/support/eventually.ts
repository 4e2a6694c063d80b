// A change made through one engine reaches the others through PostgreSQL
// notifications within milliseconds: poll briefly for the expected answer
// rather than sleep a fixed time.
export async function eventually(probe: () => Promise<number>, expected: number): Promise<number> {
  let status = await probe();
  for (const deadline = Date.now() + 5000; status !== expected && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = await probe();
  }
  return status;
}
