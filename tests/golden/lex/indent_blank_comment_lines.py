if a:
    x = 1

        # deeper comment
  # shallower comment
    
    y = 2
z = 3
