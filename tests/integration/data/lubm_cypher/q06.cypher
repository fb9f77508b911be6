// LUBM Query 6: every student (undergraduate and graduate).
MATCH (x:Student)
RETURN x AS X
