# main()
def main():
    n = int(input())
    w = input().split()
    print(len(set(w)))

if __name__ == '__main__':
    main()
