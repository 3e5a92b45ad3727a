# python_threads: a pool of threads doing work under a lock, a thread pool
# executor, and multiprocessing pools started by fork and by spawn.
import hashlib
import multiprocessing as mp
import threading
from concurrent.futures import ThreadPoolExecutor

def square(x):
    return x * x

def work(i, lock, total):
    h = hashlib.sha256()
    for j in range(2000):
        h.update(str(j * i).encode())
    with lock:
        total[0] += int(h.hexdigest()[:6], 16)

if __name__ == "__main__":
    lock, total = threading.Lock(), [0]
    ts = [threading.Thread(target=work, args=(i, lock, total)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print("threads", total[0])
    with ThreadPoolExecutor(4) as ex:
        print("executor", sum(ex.map(square, range(1000))))
    for method in ("fork", "spawn"):
        with mp.get_context(method).Pool(2) as pool:
            print(method, sum(pool.map(square, range(100))))
