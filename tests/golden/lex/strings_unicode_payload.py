s = 'café 日本 😀'
t = '\0x'
