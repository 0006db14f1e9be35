# main()
def main():
    n = int(input())
    a = list(map(int, input().split()))
    print(f'{sum(a) / n:.10f}')

if __name__ == '__main__':
    main()
