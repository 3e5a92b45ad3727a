// goroutines: what a Go program does that a recorder must get right. The
// runtime starts several threads, preempts goroutines with SIGURG, reads
// the clock through the vDSO, waits on futexes and epoll, and os/exec
// starts children through clone(CLONE_VM|CLONE_VFORK). It prints only what
// does not depend on timing.
package main

import (
	"fmt"
	"os/exec"
	"sync"
	"time"
)

func main() {
	start := time.Now()
	ch := make(chan int, 4)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			s := 0
			for j := 0; j < 300000; j++ {
				s += j % (id + 1)
			}
			mu.Lock()
			total += s
			mu.Unlock()
			ch <- id
		}(i)
	}
	go func() { wg.Wait(); close(ch) }()
	n := 0
	for range ch {
		n++
	}
	t := time.NewTimer(20 * time.Millisecond)
	<-t.C
	tick := time.NewTicker(5 * time.Millisecond)
	for i := 0; i < 3; i++ {
		<-tick.C
	}
	tick.Stop()
	var ewg sync.WaitGroup
	outs := make([]string, 4)
	for i := range outs {
		ewg.Add(1)
		go func(i int) {
			defer ewg.Done()
			out, err := exec.Command("/bin/echo", "child", fmt.Sprint(i)).Output()
			if err != nil {
				outs[i] = err.Error()
				return
			}
			outs[i] = string(out)
		}(i)
	}
	ewg.Wait()
	fmt.Println("goroutines", n, "total", total)
	fmt.Print(outs[0], outs[1], outs[2], outs[3])
	fmt.Println("elapsed at least 35 ms:", time.Since(start) >= 35*time.Millisecond)
}
