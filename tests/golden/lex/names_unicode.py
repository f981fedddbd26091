café = 日本 + µ + Δα
naïve_été = 1
