# infinite loop
while True:
    pass
