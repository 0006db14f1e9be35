# empty output
pass
