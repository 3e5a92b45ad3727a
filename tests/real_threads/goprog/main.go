// goprog: a small Go program for mrr's threaded real-program tests (issue 12).
// Goroutines on several OS threads, channels, a timer, and a garbage
// collection that returns memory to the kernel (debug.FreeOSMemory, which
// madvises the freed heap). Its output is the same on every run.
package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

func work(id int, jobs <-chan int, results chan<- [2]int, wg *sync.WaitGroup) {
	defer wg.Done()
	for n := range jobs {
		s := 0
		for i := 0; i < n; i++ {
			s += i * i % 7
		}
		results <- [2]int{id, s}
	}
}

func main() {
	jobs := make(chan int, 16)
	results := make(chan [2]int, 16)
	var wg sync.WaitGroup
	for id := 0; id < 4; id++ {
		wg.Add(1)
		go work(id, jobs, results, &wg)
	}
	go func() {
		for n := 1000; n < 201000; n += 1000 {
			jobs <- n
		}
		close(jobs)
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	total, count := 0, 0
	for r := range results {
		total += r[1]
		count++
	}
	fmt.Println("results", count, total)

	// Garbage: 64 MiB in 1 MiB pieces, dropped, then handed back.
	keep := make([][]byte, 0, 64)
	for i := 0; i < 64; i++ {
		b := make([]byte, 1<<20)
		b[i] = byte(i)
		keep = append(keep, b)
	}
	sum := 0
	for i, b := range keep {
		sum += int(b[i])
	}
	keep = nil
	runtime.GC()
	debug.FreeOSMemory()
	fmt.Println("garbage", sum)

	timer := time.NewTimer(30 * time.Millisecond)
	ticks := 0
	ticker := time.NewTicker(5 * time.Millisecond)
	defer ticker.Stop()
	for waiting := true; waiting; {
		select {
		case <-ticker.C:
			ticks++
		case <-timer.C:
			waiting = false
		}
	}
	fmt.Println("timer fired", ticks > 0)
	fmt.Println("PASS")
}
