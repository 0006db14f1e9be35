# runs in a thread with a big stack
import threading
threading.stack_size(1 << 26)
def main():
    n = int(input())
    print('Yes' if n % 2 == 0 else 'No')

threading.Thread(target=main).start()
