# runs in a thread with a big stack
import threading
threading.stack_size(1 << 26)
def main():
    n = int(input())
    w = input().split()
    print(len(set(w)))

threading.Thread(target=main).start()
