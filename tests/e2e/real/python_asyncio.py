# python_asyncio: an event loop with a subprocess and timers.
import asyncio

async def main():
    p = await asyncio.create_subprocess_exec(
        "/bin/echo", "hi", stdout=asyncio.subprocess.PIPE)
    out, _ = await p.communicate()
    print(out, p.returncode)
    await asyncio.sleep(0.01)
    print(await asyncio.gather(*(asyncio.sleep(0.001, result=i) for i in range(5))))

asyncio.run(main())
