# nothing here

   # still nothing
